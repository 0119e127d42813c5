package kgc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/internal/memlimit"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/pathrule"
	"github.com/hinge-srl/hinge/srcpos"
)

// scoreFile is an evaluator that knows nothing of hinge's ranking: it reads
// a predictions file, checks its contract (a block per test triple in
// order, lists sorted by the written score, no known answer but the test
// triple's own) and scores it: the true answer's rank in its list is 1 +
// the candidates with a higher score + half of those with the same score;
// an answer not in its list is a miss.
func scoreFile(t *testing.T, text string, test []Triple, v *Vocab, known func(Triple) bool) Metrics {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<24)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != 3*len(test) {
		t.Fatalf("%d lines for %d test triples", len(lines), len(test))
	}
	ent := map[string]int32{}
	for i, e := range v.Entities {
		ent[e] = int32(i)
	}
	var m Metrics
	for i, tr := range test {
		if want := v.Entities[tr.H] + " " + v.Relations[tr.R] + " " + v.Entities[tr.T]; lines[3*i] != want {
			t.Fatalf("block %d: %q, want %q", i, lines[3*i], want)
		}
		for j, label := range []string{"Heads: ", "Tails: "} {
			line := lines[3*i+1+j]
			if !strings.HasPrefix(line, label) {
				t.Fatalf("block %d: %q does not start with %q", i, line, label)
			}
			f := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, label), "\t"), "\t")
			if len(f) == 1 && f[0] == "" {
				f = nil
			}
			if len(f)%2 != 0 {
				t.Fatalf("block %d: odd number of fields in %q", i, line)
			}
			truth := tr.H
			if j == 1 {
				truth = tr.T
			}
			found, ts := false, 0.0
			var scores []float64
			for c := 0; c < len(f); c += 2 {
				e, ok := ent[f[c]]
				s, err := strconv.ParseFloat(f[c+1], 64)
				if !ok || err != nil {
					t.Fatalf("block %d: bad candidate %q %q", i, f[c], f[c+1])
				}
				if len(scores) > 0 && s > scores[len(scores)-1] {
					t.Fatalf("block %d %s: %q not sorted by score", i, label, line)
				}
				scores = append(scores, s)
				atom := Triple{H: tr.H, R: tr.R, T: e}
				if j == 0 {
					atom = Triple{H: e, R: tr.R, T: tr.T}
				}
				if e == truth {
					found, ts = true, s
				} else if known(atom) {
					t.Fatalf("block %d %s: known answer %s listed", i, label, f[c])
				}
			}
			if !found {
				m.add(0)
				continue
			}
			rank := 1.0
			for _, s := range scores {
				switch {
				case s > ts:
					rank++
				case s == ts:
					rank += 0.5
				}
			}
			m.add(rank - 0.5) // the true answer itself counted as tied
		}
	}
	m.finish()
	return m
}

// The predictions file, scored by scoreFile, gives the metrics hinge
// prints, for every scoring, several top-k and with and without early
// stopping.
func TestPredictionsFileGivesPrintedMetrics(t *testing.T) {
	for seed := range uint64(3) {
		g := randomGraph(seed, 20, 3, 140)
		v := NewVocab()
		for e := range 20 {
			v.Entity(fmt.Sprint("e", e))
		}
		for r := range 3 {
			v.Relation(fmt.Sprint("r", r))
		}
		rng := rand.New(rand.NewPCG(seed, 5))
		var test []Triple
		for range 30 {
			test = append(test, Triple{H: int32(rng.IntN(20)), R: int32(rng.IntN(3)), T: int32(rng.IntN(20))})
		}
		known := func(tr Triple) bool { return g.Has(tr) || containsTriple(test, tr) }
		res, err := Learn(context.Background(), g, LearnOptions{Rounds: 2, SamplesPerRound: 2000, Seed: seed, MinSupport: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []Scoring{MaxPlus, Max, NoisyOr, PSL, Clustered} {
			rk := NewRanker(g, res.Rules, s)
			if s == Clustered {
				// Graph triples as validation: what is checked here is the
				// file, with some rules sharing a cluster.
				rep, err := rk.Cluster(context.Background(), g.Triples[:60], g.Has, ClusterOptions{Seed: seed, Thresholds: []float64{0.5, 0.2, 0.05}})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Merged == 0 {
					t.Fatalf("seed %d: no rule shares a cluster", seed)
				}
			}
			var model *PSLModel
			if s == PSL {
				if model, err = rk.NewPSL(context.Background(), v, PSLOptions{Candidates: 4, TrainQueries: 20, Seed: 1}); err != nil {
					t.Fatal(err)
				}
			}
			for _, k := range []int{1, 3, 100} {
				for _, exhaustive := range []bool{false, true} {
					opt := EvalOptions{TopK: k, Exhaustive: exhaustive, ADMM: admm.DefaultOptions(), PSL: model}
					ev, err := rk.Evaluate(context.Background(), test, known, opt)
					if err != nil {
						t.Fatal(err)
					}
					var b strings.Builder
					if err := ev.WritePredictions(&b, test, v); err != nil {
						t.Fatal(err)
					}
					got := scoreFile(t, b.String(), test, v, known)
					want := ev.Metrics
					if got.Queries != want.Queries || math.Abs(got.MRR-want.MRR) > 1e-12 || got.Hits1 != want.Hits1 || got.Hits3 != want.Hits3 || got.Hits10 != want.Hits10 {
						t.Fatalf("seed %d %s k %d exhaustive %v: file %+v, printed %+v", seed, s, k, exhaustive, got, want)
					}
					// Streamed (EvalOptions.Answers, one thread and two):
					// the same file, in order, and no list kept.
					for _, threads := range []int{1, 2} {
						var streamed strings.Builder
						pw := NewPredictionWriter(&streamed, v)
						next := 0
						opt.Threads = threads
						opt.Answers = func(i int, h, tl Answer) error {
							if i != next { // on a ranking goroutine: no t.Fatal here
								return fmt.Errorf("triple %d handed on, want %d", i, next)
							}
							next++
							return pw.Write(test[i], h, tl)
						}
						sev, err := rk.Evaluate(context.Background(), test, known, opt)
						if err != nil || pw.Flush() != nil {
							t.Fatal(err)
						}
						if streamed.String() != b.String() || sev.Metrics != ev.Metrics {
							t.Fatalf("seed %d %s k %d threads %d: streamed file or metrics differ", seed, s, k, threads)
						}
						if s != PSL && (sev.Heads[0].List != nil || sev.Tails[len(test)-1].List != nil) {
							t.Fatalf("%s: streamed lists kept", s)
						}
					}
					// An error of Answers stops the evaluation with it, also
					// when it is not of context.Canceled's type (the other
					// workers stop with that) and several threads rank.
					boom := &fs.PathError{Op: "write", Path: "pred.txt", Err: errors.New("no space left on device")}
					opt.Threads = 4
					opt.Answers = func(i int, _, _ Answer) error {
						if i == 3 {
							return boom
						}
						return nil
					}
					if _, err := rk.Evaluate(context.Background(), test, known, opt); !errors.Is(err, boom) {
						t.Fatalf("%s: error %v, want the writer's", s, err)
					}
				}
			}
		}
	}
}

func containsTriple(ts []Triple, t Triple) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// Written scores fold the tie-breaks: maxplus candidates that share their
// best confidence get strictly decreasing scores, ties stay equal.
func TestWrittenScores(t *testing.T) {
	c := func(e int32, confs ...float64) Candidate { return Candidate{Entity: e, Score: confs[0], confs: confs} }
	list := []Candidate{c(1, 0.9), c(2, 0.5, 0.4), c(3, 0.5, 0.3), c(4, 0.5, 0.3), c(5, 0.5), c(6, 0.2)}
	setTies(MaxPlus, list)
	w := WrittenScores(list)
	if !(w[0] == 0.9 && w[1] == 0.5 && w[2] < w[1] && w[2] == w[3] && w[4] < w[3] && w[5] == 0.2 && w[4] > 0.4999999) {
		t.Errorf("written scores %v", w)
	}
	for i := range w {
		if back, _ := strconv.ParseFloat(strconv.FormatFloat(w[i], 'g', -1, 64), 64); back != w[i] {
			t.Errorf("%v does not read back", w[i])
		}
	}
}

// A sampled confidence lies within its stated error of the exact one in
// at least 90% of rules (the interval is a 95% one), on generated graphs
// with hubs over many seeds; with at least as many draws as starts the
// count is the exact one, with no error.
func TestSampledConfidence(t *testing.T) {
	inside, total := 0, 0
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 11))
		const n = 600
		var ts []Triple
		// A few hubs (groups) that many entities belong to, a sparse
		// friend relation, and likes mostly following friends' likes.
		for x := range int32(n) {
			ts = append(ts, Triple{H: x, R: 0, T: int32(n + r.IntN(4))})
			for range 2 {
				ts = append(ts, Triple{H: x, R: 1, T: int32(r.IntN(n))})
			}
			ts = append(ts, Triple{H: x, R: 2, T: int32(r.IntN(40))})
		}
		for _, t := range ts[:len(ts)] {
			if t.R == 1 && r.IntN(2) == 0 {
				ts = append(ts, Triple{H: t.H, R: 3, T: t.T})
			}
		}
		g := NewGraph(ts, n+4, 4)
		sc := pathrule.NewWalker(g)
		for range 15 {
			rule := Rule{Kind: Cyclic, Head: int32(1 + r.IntN(3))}
			for range 1 + r.IntN(3) {
				rule.Body = append(rule.Body, Step{R: int32(r.IntN(4)), Inverse: r.IntN(2) == 0})
			}
			exact := rule
			exact.Count(g, CountOptions{PC: 5}, sc)
			s := rule
			s.Count(g, CountOptions{PC: 5, Sample: 80, Seed: seed}, sc)
			if exact.Sampled != 0 || exact.Err != 0 {
				t.Fatalf("an exact count has Sampled %d Err %g", exact.Sampled, exact.Err)
			}
			starts := len(g.From(rule.Body[0].R, rule.Body[0].Inverse))
			if starts <= 80 {
				if s.Conf != exact.Conf || s.Err != 0 || s.Sampled != 0 {
					t.Fatalf("%d starts, 80 draws: %+v, exact %+v", starts, s, exact)
				}
				continue
			}
			if s.Sampled != 80 || !(s.Err > 0) {
				t.Fatalf("sampled count %+v", s)
			}
			total++
			if math.Abs(s.Conf-exact.Conf) <= s.Err {
				inside++
			}
			// As many draws as starts: exact.
			all := rule
			all.Count(g, CountOptions{PC: 5, Sample: starts, Seed: seed}, sc)
			if all.Conf != exact.Conf || all.Support != exact.Support || all.BodySize != exact.BodySize || all.Err != 0 {
				t.Fatalf("draws = starts: %+v, exact %+v", all, exact)
			}
		}
	}
	if total < 200 || float64(inside) < 0.9*float64(total) {
		t.Errorf("exact confidence within the stated error for %d of %d sampled rules", inside, total)
	}
	t.Logf("exact confidence within the stated error for %d of %d sampled rules", inside, total)
}

// The rules learned depend on the seed and the rounds only: a timed run's
// rounds, given as Rounds, give the same rules file byte for byte, with
// any number of threads.
func TestRoundsReproduceTimedRun(t *testing.T) {
	g := randomGraph(9, 60, 4, 700)
	v := NewVocab()
	for e := range 60 {
		v.Entity(fmt.Sprint("e", e))
	}
	for r := range 4 {
		v.Relation(fmt.Sprint("r", r))
	}
	write := func(rules []Rule) string {
		var b strings.Builder
		if err := WriteRules(&b, rules, v); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	timed, err := Learn(context.Background(), g, LearnOptions{Time: 300 * time.Millisecond, SamplesPerRound: 300, Seed: 4, Sample: 20, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if timed.Rounds == 0 || len(timed.Log) != timed.Rounds {
		t.Fatalf("timed run: %d rounds, log %v", timed.Rounds, timed.Log)
	}
	for _, threads := range []int{1, 3} {
		again, err := Learn(context.Background(), g, LearnOptions{Rounds: timed.Rounds, SamplesPerRound: 300, Seed: 4, Sample: 20, Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		if again.Rounds != timed.Rounds || write(again.Rules) != write(timed.Rules) {
			t.Errorf("threads %d: %d rounds, %d rules; timed run %d rounds (%s), %d rules", threads, again.Rounds, len(again.Rules), timed.Rounds, timed.Stopped, len(timed.Rules))
		}
	}
}

// Hostile input: a byte-order mark at the start is skipped, a NUL byte, an
// over-long line and invalid UTF-8 are refused with their position, and a
// cancelled read stops.
func TestParseTriplesGuards(t *testing.T) {
	defer memlimit.Restore(memlimit.Set(1 << 20)) // lines of at most 256 KiB
	v := NewVocab()
	ts, err := ParseTriples(context.Background(), "bom.txt", strings.NewReader("\uFEFFa\tr\tb\nb\tr\ta\n"), v)
	if err != nil || len(ts) != 2 || v.Entities[0] != "a" {
		t.Errorf("BOM: %v %v, entities %q", ts, err, v.Entities)
	}
	for _, tc := range []struct{ in, want string }{
		{"a\tr\tb\nc\tr\td\x00\n", "n.txt:2:6: n.txt is not a text file: a NUL byte"},
		{"a\tr\tb\nc\tr\t\xffd\n", "n.txt:2:5"},
		{"a\tr\tb\nc\tr\t\xffd\n", "invalid UTF-8"},
		{"a\tr\t" + strings.Repeat("x", textfile.MaxLine()+10) + "\n", "n.txt:1: the line is longer than"},
	} {
		_, err := ParseTriples(context.Background(), "n.txt", strings.NewReader(tc.in), NewVocab())
		msg := fmt.Sprint(err)
		if pe := (*srcpos.Error)(nil); errors.As(err, &pe) {
			msg = pe.Error()
		}
		if err == nil || !strings.Contains(msg, tc.want) {
			t.Errorf("%.40q: error %v, want %q", tc.in, msg, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ParseTriples(ctx, "c.txt", strings.NewReader(strings.Repeat("a\tr\tb\n", 10000)), NewVocab()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read: %v", err)
	}
}

// A memory limit stops learning after the round past which another would
// outgrow its share (a limit of one byte: after the first round), and the
// rules are those of the rounds done; a limit that is never approached
// changes nothing.
func TestLearnMemoryLimit(t *testing.T) {
	g := randomGraph(9, 60, 4, 700)
	opt := LearnOptions{Rounds: 4, SamplesPerRound: 300, Seed: 4, Sample: 20}
	full, err := Learn(context.Background(), g, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.MemoryLimit = 1 << 50
	if big, err := Learn(context.Background(), g, opt); err != nil || big.Rounds != 4 || big.Stopped != "rounds" || len(big.Rules) != len(full.Rules) {
		t.Fatalf("a limit never reached: %d rounds (%s), %d rules, want %d: %v", big.Rounds, big.Stopped, len(big.Rules), len(full.Rules), err)
	}
	opt.MemoryLimit = 1
	small, err := Learn(context.Background(), g, opt)
	if err != nil {
		t.Fatal(err)
	}
	one, err := Learn(context.Background(), g, LearnOptions{Rounds: 1, SamplesPerRound: 300, Seed: 4, Sample: 20})
	if err != nil {
		t.Fatal(err)
	}
	if small.Rounds != 1 || small.Stopped != "memory" || len(small.Rules) != len(one.Rules) {
		t.Fatalf("a limit of 1 byte: %d rounds (%s), %d rules; one round learns %d", small.Rounds, small.Stopped, len(small.Rules), len(one.Rules))
	}
}

// RulesApplied: medians over the queries and the share of the rules that
// could fire that were applied.
func TestRulesApplied(t *testing.T) {
	ev := &Evaluation{Heads: []Answer{{Rules: 10, Applied: 2}, {Rules: 4, Applied: 4}}, Tails: []Answer{{Rules: 6, Applied: 3}, {Rules: 0}}}
	f, a, share := ev.RulesApplied()
	if f != 6 || a != 3 || share != 9.0/20 {
		t.Errorf("RulesApplied = %d, %d, %v", f, a, share)
	}
}
