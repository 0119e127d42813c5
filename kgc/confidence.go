package kgc

import (
	"fmt"
	"math"
)

// Confidence says which estimate of a rule's confidence ranking uses.
type Confidence int

const (
	// PointConfidence ranks with Rule.Conf, support / (body + pc), as
	// counted or estimated from sampled starts.
	PointConfidence Confidence = iota
	// LowerConfidence ranks with a pessimistic estimate that falls with
	// thin evidence: the lower end of the Wilson score interval of
	// support successes out of body + pc trials, less the sampling error
	// of a sampled count (LowerConf). Of two rules of point confidence
	// 0.375, 3 of 3 body groundings (3 / (3 + 5)) and 30 of 75 (30 / (75
	// + 5)), the second ranks first.
	LowerConfidence
)

// DefaultLowerZ is the z of LowerConfidence's interval: 1.96 (95%).
const DefaultLowerZ = 1.96

// ParseConfidence reads point or lower.
func ParseConfidence(s string) (Confidence, error) {
	switch s {
	case "point":
		return PointConfidence, nil
	case "lower":
		return LowerConfidence, nil
	}
	return 0, fmt.Errorf("unknown confidence %q (want point or lower)", s)
}

func (c Confidence) String() string {
	switch c {
	case PointConfidence:
		return "point"
	case LowerConfidence:
		return "lower"
	}
	return fmt.Sprintf("Confidence(%d)", int(c))
}

// LowerConf is the lower end of the Wilson score interval (Wilson 1927) at
// z for a rule's point confidence p = support / n, n = support / p the
// trials p implies (body + pc for a rule of Learn, whatever smoothing a
// rules file was made with):
//
//	(p + z²/2n - z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n),
//
// less sampleErr z / 1.96 (sampleErr being the half-width of p's 95%
// interval from sampling, Rule.Err; 0 for an exact count), and at least
// 0. It is never above p: the smoothing stays, and the interval's width
// adds what little evidence costs. It is 0 when support or p is 0.
func LowerConf(p float64, support int, sampleErr, z float64) float64 {
	if !(p > 0) || support <= 0 {
		return 0
	}
	p = min(p, 1)
	n := float64(support) / p
	z2 := z * z
	w := (p + z2/(2*n) - z*math.Sqrt(p*(1-p)/n+z2/(4*n*n))) / (1 + z2/n)
	return max(0, min(w, p)-sampleErr*z/1.96)
}

// RankingConf is the rule's confidence under the estimate c.
func (r *Rule) RankingConf(c Confidence) float64 {
	if c == LowerConfidence {
		return LowerConf(r.Conf, r.Support, r.Err, DefaultLowerZ)
	}
	return r.Conf
}
