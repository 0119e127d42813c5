// Package kgc completes knowledge graphs with learned rules: it learns
// cyclic path rules, acyclic rules with constants and default rules
// bottom-up from sampled paths of a training graph (the scheme of AnyBURL,
// Meilicke et al. 2019), counts every rule's support and confidence exactly,
// and ranks the candidate answers of (h, r, ?) and (?, r, t) queries by
// combining the confidences of the rules that predict them (maximum,
// max-plus or noisy-or), with filtered MRR and Hits@k.
//
// # Rules
//
// A cyclic rule r(X, Y) <= b1(X, A1), ..., bn(An-1, Y) has a body path of
// 1-3 atoms, each walked forwards or backwards. An acyclic rule has a
// constant c in the head: r(X, c) <= b(X, d) (with a constant d reached by
// the body atom) or r(X, c) <= b(X, A) (any b edge), and the same with the
// constant in the head's first position. A default rule r(X, c) predicts c
// for every X. A rule r(X, c) <= b(X, d) answers queries both ways: c for
// (x, r, ?) when b(x, d) holds, and every such x for (?, r, c) (on Kinship's
// validation split this lifts filtered MRR from 0.588 to 0.604 with maxplus
// and from 0.604 to 0.633 with noisy-or; Family's does not move).
//
// AnyBURL's rule files are read too (ReadRules): its me_myself_i, the
// constant Self, is the rule's own variable, so r(X,me_myself_i) is the
// self-loop r(X, X).
//
// A rule's body size is its number of body groundings: distinct (X, Y)
// pairs for a cyclic rule, distinct X values otherwise (for a default rule
// r(X, c), the entities seen in X's position of r other than c itself, as
// X = c would predict a self-loop). Its support is the number of
// those whose head is in the graph, and its confidence
// support / (body size + pc), pc smoothing rare bodies (default 5).
// Ranking uses that point confidence, or (Ranker.SetConfidence with
// LowerConfidence) the lower end of its Wilson score interval less the
// error of a sampled count, which ranks a rule of thin evidence below one of
// equal point confidence with more (LowerConf).
//
// # Ranking and metrics
//
// A candidate's score combines the confidences of the rules that predict
// it: max (the largest), maxplus (the sorted vector of its confidences,
// compared lexicographically: ties on the largest are broken by the next),
// or noisy-or (1 - prod(1 - conf) over its few best rules, ties broken as
// by maxplus: over every rule, the near-duplicate rules of a dense graph
// drive every candidate to 1; and a rule that predicts, for the query,
// exactly the candidates of a more confident rule counts once), or
// clustered: the non-redundant noisy-or of Ott, Meilicke and
// Stuckenschmidt ("SAFRAN: An interpretable, rule-based link prediction
// method outperforming embedding models"), where rules whose predictions
// overlap (Jaccard index of bottom-k sketches of their predictions) form
// clusters that count once, with their largest confidence, the thresholds
// chosen per relation on validation triples (Ranker.Cluster, in one
// bounded pass per relation). The filtered rank of the true answer
// leaves out the other true answers (from the training, validation and test
// triples); a candidate tied with it counts half (the expected rank under
// random tie-breaking); a true answer no rule predicts is a miss
// (reciprocal rank 0).
package kgc
