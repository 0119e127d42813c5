package kgc

import "testing"

func TestIntervalsOf(t *testing.T) {
	rule := func(conf, err float64, sampled int) Rule { return Rule{Conf: conf, Err: err, Sampled: sampled} }
	tests := []struct {
		name        string
		rules       []Rule
		sampled     int
		median, p90 float64
		widest      int
		lo, hi      float64
	}{
		{"exact only", []Rule{rule(0.9, 0, 0), rule(0.5, 0, 0)}, 0, 0, 0, -1, 0, 0},
		// The widest interval overall (+-1 at 0.05) is below MattersConf:
		// the widest that matters is 0.4 +-0.3.
		{"widest that matters", []Rule{rule(0.9, 0, 0), rule(0.6, 0.05, 100), rule(0.4, 0.3, 20), rule(0.05, 1, 3), rule(0.2, 0.02, 500)},
			4, 0.05, 0.3, 2, 0.1, 0.7},
		// Clipped to [0, 1].
		{"clipped", []Rule{rule(0.95, 0.2, 10), rule(0.15, 0.25, 10)}, 2, 0.2, 0.2, 1, 0, 0.4},
		{"none matters", []Rule{rule(0.01, 0.5, 4)}, 1, 0.5, 0.5, -1, 0, 0},
	}
	for _, tc := range tests {
		iv := IntervalsOf(tc.rules)
		near := func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }
		if iv.Sampled != tc.sampled || !near(iv.MedianErr, tc.median) || !near(iv.P90Err, tc.p90) || iv.Widest != tc.widest || !near(iv.Lo, tc.lo) || !near(iv.Hi, tc.hi) {
			t.Errorf("%s: got %+v, want sampled %d, median %g, p90 %g, widest %d in [%g, %g]", tc.name, iv, tc.sampled, tc.median, tc.p90, tc.widest, tc.lo, tc.hi)
		}
	}
}
