package kgc

// Predictions calls f for every rule that predicts some candidate for the
// query (e, r, ?) when tail, else (?, r, e), in decreasing confidence (the
// order in which Rank applies them), with the confidence the ranker ranks
// it with (Rule.Conf, or the estimate of SetConfidence or RankBy) and the
// candidates it predicts (a slice reused between calls: copy what you
// keep). Combining, for a candidate, those confidences of the rules that
// predict it under the ranker's scoring gives its score in Rank's list:
// under NoisyOr and Learned a rule whose candidates repeat a more
// confident rule's exactly is left out, as it adds nothing there (unless
// Ranker.RepeatedSets). Under Learned a candidate's score is the sum over
// its first places of Weight(rule, place) * -log(1 - conf).
func (rk *Ranker) Predictions(e, r int32, tail bool, f func(rule *Rule, conf float64, cands []int32)) {
	if int(r) >= len(rk.byHead) || int(e) >= rk.g.NumEntities || e < 0 || r < 0 {
		return
	}
	qs := rk.newQueryScratch()
	list, conf := rk.byHead[r], rk.conf[r]
	for _, i := range rk.gather(e, r, tail, qs) {
		rule := list[i]
		qs.buf = rule.predict(rk.g, e, tail, qs.w, qs.buf)
		if len(qs.buf) > 0 && !(rk.scoring.combined() == NoisyOr && !rk.RepeatedSets && qs.repeated(qs.buf)) {
			f(rule, conf[i], qs.buf)
		}
	}
}

// Scoring returns the ranker's scoring.
func (rk *Ranker) Scoring() Scoring { return rk.scoring }
