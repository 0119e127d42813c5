package kgc

import (
	"math"
	"sort"
)

// MattersConf is the point confidence from which IntervalsOf looks for
// the widest interval: a rule below it rarely decides a candidate's place
// (noisy-or adds little for it; maxplus and max rank it below every rule
// above it), so a wide interval there says little about the ranking.
const MattersConf = 0.1

// Intervals summarises the 95% intervals of the sampled confidences of a
// rule set, for a user deciding whether to count more exactly (--sample,
// --sample-err).
type Intervals struct {
	// Sampled is the number of rules whose confidence was estimated from
	// sampled starts (the others were counted exactly).
	Sampled int
	// MedianErr and P90Err are the half-widths of those rules' intervals
	// at the median and the 90th percentile.
	MedianErr, P90Err float64
	// Widest is the index (in the rule set) of the sampled rule with
	// confidence at least MattersConf whose interval is widest, -1 when no
	// sampled rule reaches MattersConf; Lo and Hi are its interval,
	// clipped to [0, 1].
	Widest int
	Lo, Hi float64
}

// IntervalsOf summarises the sampled confidences of rules.
func IntervalsOf(rules []Rule) Intervals {
	iv := Intervals{Widest: -1}
	var errs []float64
	for i := range rules {
		r := &rules[i]
		if r.Sampled == 0 {
			continue
		}
		errs = append(errs, r.Err)
		if r.Conf < MattersConf {
			continue
		}
		lo, hi := math.Max(0, r.Conf-r.Err), math.Min(1, r.Conf+r.Err)
		if iv.Widest < 0 || hi-lo > iv.Hi-iv.Lo {
			iv.Widest, iv.Lo, iv.Hi = i, lo, hi
		}
	}
	iv.Sampled = len(errs)
	if len(errs) > 0 {
		sort.Float64s(errs)
		iv.MedianErr = errs[(len(errs)-1)/2]
		iv.P90Err = errs[(len(errs)-1)*9/10]
	}
	return iv
}
