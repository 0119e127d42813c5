package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hinge-srl/hinge/maxsat"
)

// writeLP writes a ground network (soft clauses with signed weights, as
// mln.Network.GroundClauses gives them, and hard clauses) as an integer
// program in CPLEX LP form, as RockIt formulates MAP (Noessner, Niepert
// and Stuckenschmidt, "RockIt: Exploiting Parallelism and Symmetry for MAP
// Inference in Statistical Relational Models", AAAI 2013): a binary x_v
// per atom; identical ground clauses merged (a clause of negative weight w
// costs |w| plus w when violated, so weights of either sign add up); a unit
// clause enters the objective directly; a clause of positive weight w gets
// a variable u in [0,1] with (sum of its literals) + u >= 1 and costs w*u;
// a clause of negative weight w gets u >= each of its literals and costs
// |w|*u; a hard clause is the constraint (sum of its literals) >= 1. The
// objective plus the returned constant is the world's cost.
func writeLP(w io.Writer, in *maxsat.Instance) (constant float64, err error) {
	objX := make([]float64, in.NumVars)
	var objU []float64
	var cons []string
	lin := func(lits []maxsat.Lit) (string, int) {
		var b strings.Builder
		rhs := 1
		for _, l := range lits {
			if l.Neg() {
				fmt.Fprintf(&b, " - x%d", l.Var())
				rhs--
			} else {
				fmt.Fprintf(&b, " + x%d", l.Var())
			}
		}
		return b.String(), rhs
	}
	type group struct {
		w    float64
		lits []maxsat.Lit
	}
	merged := map[string]int{}
	var groups []group
	var key []byte
	for c := range in.NumClauses() {
		lits := slices.Clone(in.Clause(c))
		slices.Sort(lits)
		if in.Hard[c] {
			if len(lits) == 0 {
				return 0, errors.New("an empty hard clause: infeasible")
			}
			s, rhs := lin(lits)
			cons = append(cons, fmt.Sprintf("%s >= %d", s, rhs))
			continue
		}
		key = key[:0]
		for _, l := range lits {
			key = strconv.AppendInt(key, int64(l), 10)
			key = append(key, ' ')
		}
		g, ok := merged[string(key)]
		if !ok {
			g = len(groups)
			merged[string(key)] = g
			groups = append(groups, group{lits: lits})
		}
		// A clause of weight w < 0 costs |w| when satisfied: |w| plus w
		// when violated. So every clause costs w when violated, plus the
		// constant, and identical ones merge by adding their weights.
		groups[g].w += in.Weight[c]
		constant += max(0, -in.Weight[c])
	}
	for _, g := range groups {
		wt, lits := g.w, g.lits
		constant -= max(0, -wt) // the merged clause's own constant, if negative
		switch {
		case wt == 0:
		case len(lits) == 0:
			constant += max(wt, 0) // an empty clause is violated
		case len(lits) == 1:
			// It costs |w| when the literal is false (w > 0) or true (w < 0).
			l := lits[0]
			if (wt > 0) == l.Neg() { // costs when x is true
				objX[l.Var()] += math.Abs(wt)
			} else { // costs when x is false: |w| - |w| x
				objX[l.Var()] -= math.Abs(wt)
				constant += math.Abs(wt)
			}
		case wt > 0:
			s, rhs := lin(lits)
			cons = append(cons, fmt.Sprintf("%s + u%d >= %d", s, len(objU), rhs))
			objU = append(objU, wt)
		default:
			for _, l := range lits {
				if l.Neg() {
					cons = append(cons, fmt.Sprintf(" + u%d + x%d >= 1", len(objU), l.Var()))
				} else {
					cons = append(cons, fmt.Sprintf(" + u%d - x%d >= 0", len(objU), l.Var()))
				}
			}
			objU = append(objU, -wt)
		}
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintln(bw, "Minimize\n obj:")
	terms := 0
	for v, c := range objX {
		if c != 0 {
			fmt.Fprintf(bw, " %+.17g x%d\n", c, v)
			terms++
		}
	}
	for k, c := range objU {
		fmt.Fprintf(bw, " %+.17g u%d\n", c, k)
		terms++
	}
	if terms == 0 {
		fmt.Fprintln(bw, " 0 x0")
	}
	fmt.Fprintln(bw, "Subject To")
	for i, c := range cons {
		fmt.Fprintf(bw, " c%d:%s\n", i, c)
	}
	fmt.Fprintln(bw, "Bounds")
	for k := range objU {
		fmt.Fprintf(bw, " 0 <= u%d <= 1\n", k)
	}
	fmt.Fprintln(bw, "Binary")
	for v := range in.NumVars {
		fmt.Fprintf(bw, " x%d\n", v)
	}
	fmt.Fprintln(bw, "End")
	return constant, bw.Flush()
}

// cbcRun is what CBC said about one integer program.
type cbcRun struct {
	status string // "optimal", "time limit", "infeasible" or what CBC printed
	// cost and bound are the objective of the best solution and the best
	// lower bound, with the constant added; cost is NaN without a solution.
	cost, bound float64
	cpu         float64 // user + system seconds (GNU time)
	wall        float64
}

var (
	cbcObjective = regexp.MustCompile(`(?m)^Objective value:\s+(\S+)`)
	cbcBound     = regexp.MustCompile(`(?m)^Lower bound:\s+(\S+)`)
	cbcResult    = regexp.MustCompile(`(?m)^Result - (.*)$`)
)

// runCBC solves the network in with COIN-OR CBC within limit (wall-clock
// seconds, as hinge's --time-limit) in dir.
func runCBC(ctx context.Context, bin, dir string, in *maxsat.Instance, limit time.Duration) (*cbcRun, error) {
	lp := filepath.Join(dir, "model.lp")
	f, err := os.Create(lp)
	if err != nil {
		return nil, err
	}
	constant, err := writeLP(f, in)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	defer os.Remove(lp)
	timeFile := filepath.Join(dir, "cbc-time.txt")
	args := []string{"-f", "%U %S", "-o", timeFile, bin, lp, "timeMode", "elapsed", "sec", strconv.Itoa(int(limit.Seconds())), "threads", "1", "solve"}
	// A margin past the limit for reading the model and writing the answer.
	ctx, cancel := context.WithTimeout(ctx, limit+5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/usr/bin/time", args...)
	killGroup(cmd)
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	r := &cbcRun{wall: time.Since(t0).Seconds(), cost: math.NaN(), bound: math.NaN()}
	if err != nil {
		return nil, fmt.Errorf("cbc: %w\n%s", err, tail(string(out), 2000))
	}
	if b, err := os.ReadFile(timeFile); err == nil {
		fs := strings.Fields(string(b))
		if len(fs) >= 2 {
			u, _ := strconv.ParseFloat(fs[len(fs)-2], 64)
			s, _ := strconv.ParseFloat(fs[len(fs)-1], 64)
			r.cpu = u + s
		}
	}
	text := string(out)
	m := cbcResult.FindStringSubmatch(text)
	if m == nil {
		return nil, fmt.Errorf("cbc printed no result line:\n%s", tail(text, 2000))
	}
	switch res := strings.TrimSpace(m[1]); {
	case strings.HasPrefix(res, "Optimal"):
		r.status = "optimal"
	case strings.HasPrefix(res, "Stopped on time"):
		r.status = "time limit"
	case strings.Contains(res, "infeasible"):
		r.status = "infeasible"
	default:
		r.status = res
	}
	if m := cbcObjective.FindStringSubmatch(text); m != nil && r.status != "infeasible" {
		if v, err := strconv.ParseFloat(m[1], 64); err == nil && v < 1e49 {
			r.cost = v + constant
		}
	}
	if m := cbcBound.FindStringSubmatch(text); m != nil {
		if v, err := strconv.ParseFloat(m[1], 64); err == nil {
			r.bound = v + constant
		}
	} else if r.status == "optimal" {
		r.bound = r.cost
	}
	return r, nil
}

// killGroup makes cmd start its own process group and, when its context
// is done, kills the group: GNU time and the program it runs alike.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
