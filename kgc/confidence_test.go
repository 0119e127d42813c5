package kgc

import (
	"math"
	"testing"
)

// wilsonLowerBisect is the lower end of the Wilson score interval found
// by bisection on its definition: the smallest q <= p with (p - q)^2 n <=
// z^2 q (1 - q), the q a score test at z does not reject.
func wilsonLowerBisect(p, n, z float64) float64 {
	lo, hi := 0.0, p
	if (p-lo)*(p-lo)*n <= z*z*lo*(1-lo) {
		return 0
	}
	for range 200 {
		mid := (lo + hi) / 2
		if (p-mid)*(p-mid)*n <= z*z*mid*(1-mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

func TestLowerConf(t *testing.T) {
	z := DefaultLowerZ
	for _, tc := range []struct {
		name             string
		support, body    int
		pc, err, z, want float64
	}{
		{"no support", 0, 10, 5, 0, z, 0},
		// p = 1 (pc 0): n / (n + z^2).
		{"1 of 1", 1, 1, 0, 0, z, 1 / (1 + z*z)},
		{"3 of 3", 3, 3, 0, 0, z, 3 / (3 + z*z)},
		{"300 of 300", 300, 300, 0, 0, z, 300 / (300 + z*z)},
		{"4 of 4, z 1", 4, 4, 0, 0, 1, 4.0 / 5},
		// p = 1/2: 1/2 - z / (2 sqrt(n + z^2)).
		{"2 of 4", 2, 4, 0, 0, z, 0.5 - z/(2*math.Sqrt(4+z*z))},
		{"3 of 1 + pc 5", 3, 1, 5, 0, z, 0.5 - z/(2*math.Sqrt(6+z*z))},
		{"50 of 100", 50, 100, 0, 0, 1, 0.5 - 1/(2*math.Sqrt(101))},
		// A sampled count loses its error (at 95%: as given).
		{"2 of 4, err 0.05", 2, 4, 0, 0.05, z, 0.5 - z/(2*math.Sqrt(4+z*z)) - 0.05},
		{"2 of 4, err 0.05, z 1", 2, 4, 0, 0.05, 1, 0.5 - 1/(2*math.Sqrt(5)) - 0.05/1.96},
		{"err beyond the estimate", 1, 1, 0, 0.9, z, 0},
	} {
		p := 0.0
		if n := float64(tc.body) + tc.pc; n > 0 {
			p = float64(tc.support) / n
		}
		got := LowerConf(p, tc.support, tc.err, tc.z)
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: LowerConf %v, closed form %v", tc.name, got, tc.want)
		}
		if got > p {
			t.Errorf("%s: LowerConf %v above the point confidence %v", tc.name, got, p)
		}
	}
	// Every small count against the interval's definition.
	for _, pc := range []float64{0, 5} {
		for body := 1; body <= 12; body++ {
			for support := 1; support <= body; support++ {
				n := float64(body) + pc
				p := float64(support) / n
				for _, z := range []float64{1, 1.96, 3} {
					got, want := LowerConf(p, support, 0, z), wilsonLowerBisect(p, n, z)
					if math.Abs(got-want) > 1e-9 {
						t.Fatalf("%d of %d + pc %v, z %v: LowerConf %v, bisection %v", support, body, pc, z, got, want)
					}
				}
			}
		}
	}
}

func TestParseConfidence(t *testing.T) {
	for _, c := range []Confidence{PointConfidence, LowerConfidence} {
		got, err := ParseConfidence(c.String())
		if err != nil || got != c {
			t.Errorf("ParseConfidence(%q) = %v, %v", c.String(), got, err)
		}
	}
	if _, err := ParseConfidence("wilson"); err == nil {
		t.Error("ParseConfidence(wilson): no error")
	}
}

// Rules of equal point confidence: under LowerConfidence the candidate of
// the rule with more evidence (more body groundings; an exact count rather
// than a sampled one) ranks first, under PointConfidence they tie.
func TestLowerConfidenceThinEvidenceBelow(t *testing.T) {
	// Query (q, r, ?): q has a b edge to d1, d2, d3; the rules
	// r(X, cI) <= b(X, dI) predict c1, c2, c3.
	const q, d1, d2, d3, c1, c2, c3 = 0, 1, 2, 3, 4, 5, 6
	const r, b = 0, 1
	g := NewGraph([]Triple{{H: q, R: b, T: d1}, {H: q, R: b, T: d2}, {H: q, R: b, T: d3}}, 7, 2)
	rule := func(c, d int32, support, body int, err float64) Rule {
		return Rule{Kind: AcyclicConst, Head: r, ConstTail: true, C: c, D: d, Body: []Step{{R: b}},
			Support: support, BodySize: body, Conf: float64(support) / float64(body+5), Err: err, Sampled: map[bool]int{true: 100}[err > 0]}
	}
	rules := []Rule{
		rule(c1, d1, 3, 3, 0),    // 3 / 8: thin
		rule(c2, d2, 30, 75, 0),  // 30 / 80: well supported
		rule(c3, d3, 30, 75, .1), // 30 / 80, sampled
	}
	if rules[0].Conf != rules[1].Conf || rules[1].Conf != rules[2].Conf {
		t.Fatalf("point confidences differ: %v %v %v", rules[0].Conf, rules[1].Conf, rules[2].Conf)
	}
	for _, s := range []Scoring{MaxPlus, Max, NoisyOr} {
		rk := NewRanker(g, rules, s)
		point := rk.Rank(q, r, true, 0)
		if len(point) != 3 || point[0].Score != point[1].Score || point[1].Score != point[2].Score {
			t.Fatalf("%s, point: %+v, want three tied candidates", s, point)
		}
		rk.SetConfidence(LowerConfidence)
		lower := rk.Rank(q, r, true, 0)
		if len(lower) != 3 || lower[0].Entity != c2 || lower[1].Entity != c3 || lower[2].Entity != c1 ||
			!(lower[0].Score > lower[1].Score && lower[1].Score > lower[2].Score) {
			t.Errorf("%s, lower: %+v, want c2 (30 of 75), c3 (sampled), c1 (3 of 3), scores strictly decreasing", s, lower)
		}
		rk.SetConfidence(PointConfidence)
		if again := rk.Rank(q, r, true, 0); again[0].Score != point[0].Score || again[2].Score != point[2].Score {
			t.Errorf("%s: point confidence again: %+v, first %+v", s, again, point)
		}
	}
}
