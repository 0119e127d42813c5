package main

// The knowledge bases, written once for Markov logic and once as a
// recursive random field with the paper's nested structure. Weights in the
// MLN are all learned (no weight: learn it); the RRF's are the initial
// weights learning starts from (the background theory, section 4 of the
// paper).
//
// Both models also carry a unit term per query predicate (a bias): Alchemy,
// which the paper used for its MLNs, adds unit clauses for every predicate
// when learning weights unless told not to (-noAddUnitClauses), and with
// only the implications "true => observed" a model could not express how
// rare the true relations are.

// inclusionMLN: the constraint both ways, as the paper writes it
// (forall x. (exists y. R(x, y)) => (exists z. S(x, z)), and back), the
// implications from the true relations to the observed copies, and the
// unit clauses. In CNF the first formula is one clause per (x, y),
// !ProjectLead(x, y) v ManagerOf(x, P0) v ... v ManagerOf(x, P99), its
// weight shared among the clauses.
const inclusionMLN = `
(EXIST y ProjectLead(x, y)) => (EXIST z ManagerOf(x, z))
(EXIST z ManagerOf(x, z)) => (EXIST y ProjectLead(x, y))
ProjectLead(x, y) => ObsLead(x, y)
ManagerOf(x, z) => ObsManages(x, z)
ProjectLead(x, y)
ManagerOf(x, z)
`

// inclusionRRF: the same knowledge base as nested features. hinge
// normalises f = exp(s - M) with M the sum of the positive weights, so
// NoLead(x) = exp(-2 * #{y : ProjectLead(x, y)}) is a soft "x leads
// nothing" (1 with no project, decaying with each one), and
// LeadNoMan(x) = exp(2 NoMan(x) - 2 NoLead(x) - 2) is a soft
// "x leads some project and manages nobody", which the root penalises:
// the soft version of (exists y ProjectLead) => (exists z ManagerOf). The
// implications to the observed copies are conjunctions of the violating
// literals, as FromClauses writes a clause.
const inclusionRRF = `
root = -1 * sum(x) LeadNoMan(x) - 1 * sum(x) ManNoLead(x) - 1 * sum(x, y) LeadUnseen(x, y) - 1 * sum(x, z) ManUnseen(x, z) + 0 * sum(x, y) ProjectLead(x, y) + 0 * sum(x, z) ManagerOf(x, z)
NoLead(x) = 2 * sum(y) !ProjectLead(x, y)
NoMan(x) = 2 * sum(z) !ManagerOf(x, z)
LeadNoMan(x) = -2 * NoLead(x) + 2 * NoMan(x)
ManNoLead(x) = -2 * NoMan(x) + 2 * NoLead(x)
LeadUnseen(x, y) = 2 * ProjectLead(x, y) + 2 * !ObsLead(x, y)
ManUnseen(x, z) = 2 * ManagerOf(x, z) + 2 * !ObsManages(x, z)
`

// fdMLN: the functional dependency of the paper,
// forall x, y1, y2. (exists z1, z2. R(x, y1, z1) ^ R(x, y2, z2)) => y1 = y2,
// with the equality an Equiv predicate to predict, and Equiv's unit clause.
// An existential in the antecedent is a universal over the whole clause, so
// the formula is written with z1, z2 free: the same ground clauses
// !Supplier(x, y1, z1) v !Supplier(x, y2, z2) v Equiv(y1, y2). (Written
// with EXIST, hinge expands it into 30 x 30 clause templates, over its
// limit of 256 per formula, and would divide the weight by 900; the
// learned weight absorbs that factor.)
const fdMLN = `
Supplier(x, y1, z1) ^ Supplier(x, y2, z2) => Equiv(y1, y2)
Equiv(y1, y2)
`

// fdRRF: NoS(x, y) = exp(-2 * #{z : Supplier(x, y, z)}) is a soft "tax ID
// x never appears with name y"; Both(x, y1, y2) = exp(-3 NoS(x, y1) -
// 3 NoS(x, y2)) a soft "x appears with both"; NoCo(y1, y2) =
// exp(-3 * sum_x Both(x, y1, y2)) a soft "no tax ID has both names";
// Viol(y1, y2) = exp(3 !Equiv(y1, y2) - 3 NoCo(y1, y2) - 3) the soft
// violation "some tax ID has both names and they are not equivalent",
// penalised by the root. Learning shapes how the evidence accumulates:
// how much a second or third shared tax ID or part adds.
const fdRRF = `
root = -2 * sum(y1, y2) Viol(y1, y2) + 0 * sum(y1, y2) Equiv(y1, y2)
Viol(y1, y2) = 3 * !Equiv(y1, y2) - 3 * NoCo(y1, y2)
NoCo(y1, y2) = -3 * sum(x) Both(x, y1, y2)
Both(x, y1, y2) = -3 * NoS(x, y1) - 3 * NoS(x, y2)
NoS(x, y) = 2 * sum(z) !Supplier(x, y, z)
`
