// Command mlnkb measures lazy MAP inference for Markov logic (hinge mln
// infer --lazy, LazySAT) and lazy MC-SAT (--lazy --marginal) on knowledge
// bases whose full grounding does not fit in memory (see README.md beside
// it):
//
//   - kb: generated knowledge bases of N entities and 10N facts (closed
//     relations and classes) with 30 clauses over 12 open predicates
//     (gen.go), at the sizes of -sizes (default 10^4, 3x10^4 and 10^5
//     entities).
//   - kinship: a generated kinship knowledge base of -people people (5,000)
//     with kinship-mln's 22 clauses, the predicates with facts closed and
//     four open; run lazily and as hinge mln infer chooses by itself.
//   - marginals: lazy MC-SAT (hinge mln infer --lazy --marginal) on the kb
//     generator's knowledge bases at the sizes of -marginal-sizes (default
//     10^4 entities), -samples samples from -chains chains after -burn-in
//     steps each: ground clauses built against the cross product, CPU
//     time and peak RSS.
//   - versus-full: knowledge bases small enough to ground in full (500 and
//     1,000 entities), in this process: MaxWalkSAT over the full ground
//     network (maxsat.WalkSAT) against lazy MAP (mln.Network.LazyMAP), the
//     same flips, noise and seed, both from the all-false world.
//
// Each run is hinge mln infer built from this checkout, as a child process
// so that its peak RSS is its own: ground clauses built against the cross
// product of the clauses' variables, cost, times and peak RSS.
//
// Usage:
//
//	go -C bench run ./mlnkb                          # all four experiments
//	go -C bench run ./mlnkb -experiments marginals -marginal-sizes 10000,30000
//	go -C bench run ./mlnkb -experiments kinship
//	go -C bench run ./mlnkb -sizes 100000 -update-results
//
// Tables go to standard output (Markdown) and CSV files to -out (default:
// hinge-bench-mlnkb in the system's temporary directory; -update-results
// writes the committed results/ beside this program).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hinge-srl/hinge/bench/internal/results"
	"github.com/hinge-srl/hinge/internal/shareddata"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "mlnkb:", err)
		os.Exit(1)
	}
}

type config struct {
	data, out, work string
	hinge           string
	memLimit        string
	flipsPerEntity  int
	noise           float64
	timeout         time.Duration
	seed            uint64
	stdout, stderr  io.Writer
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mlnkb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	experiments := fs.String("experiments", "kb,kinship,versus-full,marginals", "comma-separated: kb, kinship, versus-full, marginals")
	marginalSizes := fs.String("marginal-sizes", "10000", "marginals: entities per knowledge base")
	samples := fs.Int("samples", 100, "marginals: MC-SAT samples over all chains (--samples)")
	burnIn := fs.Int("burn-in", 10, "marginals: steps each chain discards first (--burn-in)")
	chains := fs.Int("chains", 2, "marginals: chains (--chains)")
	sizes := fs.String("sizes", "10000,30000,100000", "kb: entities per knowledge base (10 facts each)")
	people := fs.Int("people", 5000, "kinship: people in the family tree")
	data := fs.String("data", "", "shared data directory, for kinship-mln's rules (default: $HINGE_DATA or ../shared/data)")
	out := fs.String("out", "", "directory for the CSV files (default: hinge-bench-mlnkb in the temporary directory)")
	update := fs.Bool("update-results", false, "write the CSV files into the committed results/ beside this program")
	work := fs.String("work", "", "directory for the generated files and the hinge binary (default: a new temporary directory, removed at the end)")
	hinge := fs.String("hinge", "", "hinge binary to run (default: built from this checkout into -work)")
	memLimit := fs.String("memory-limit", "8GiB", "--memory-limit of every run")
	flips := fs.Int("flips-per-entity", 200, "MaxWalkSAT flips per entity (--flips)")
	noise := fs.Float64("noise", 0.5, "MaxWalkSAT's random-walk probability (--noise)")
	timeout := fs.Duration("timeout", 30*time.Minute, "a run taking longer is stopped and reported as such")
	seed := fs.Uint64("seed", 1, "seed of the generators and of MaxWalkSAT")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c := &config{data: *data, out: *out, work: *work, hinge: *hinge, memLimit: *memLimit, flipsPerEntity: *flips, noise: *noise,
		timeout: *timeout, seed: *seed, stdout: stdout, stderr: stderr}
	switch {
	case *update && c.out != "":
		return errors.New("-out and -update-results exclude each other")
	case *update:
		_, src, _, _ := runtime.Caller(0)
		c.out = filepath.Join(filepath.Dir(src), "results")
	case c.out == "":
		c.out = filepath.Join(os.TempDir(), "hinge-bench-mlnkb")
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	if c.work == "" {
		dir, err := os.MkdirTemp("", "hinge-mlnkb-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		c.work = dir
	}
	if err := c.build(ctx); err != nil {
		return err
	}
	for _, e := range strings.Split(*experiments, ",") {
		var err error
		switch e {
		case "kb":
			err = c.kbRuns(ctx, *sizes)
		case "kinship":
			err = c.kinship(ctx, *people)
		case "versus-full":
			err = c.versusFull(ctx)
		case "marginals":
			err = c.marginals(ctx, *marginalSizes, *samples, *burnIn, *chains)
		default:
			err = fmt.Errorf("unknown experiment %q (want kb, kinship, versus-full or marginals)", e)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// build compiles hinge from this checkout (bench/go.mod replaces the
// module by ..) unless -hinge names a binary.
func (c *config) build(ctx context.Context) error {
	if c.hinge != "" {
		return nil
	}
	root, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/hinge-srl/hinge").Output()
	if err != nil {
		return fmt.Errorf("finding the hinge module (run from the bench module: go -C bench run ./mlnkb): %w", err)
	}
	c.hinge = filepath.Join(c.work, "hinge")
	cmd := exec.CommandContext(ctx, "go", "-C", strings.TrimSpace(string(root)), "build", "-o", c.hinge, "./cmd/hinge")
	cmd.Stdout, cmd.Stderr = c.stderr, c.stderr
	return cmd.Run()
}

// report is what a run's --report holds (hinge mln infer, lazy or not).
type report struct {
	Lazy          bool     `json:"lazy"`
	GroundClauses int      `json:"ground_clauses"`
	HardClauses   int      `json:"ground_hard_clauses"`
	Unknowns      int      `json:"unknown_atoms"`
	AllUnknowns   float64  `json:"all_unknown_atoms"`
	CrossProduct  float64  `json:"cross_product"`
	Method        string   `json:"method"`
	Cost          float64  `json:"cost"`
	LowerBound    *float64 `json:"cost_lower_bound"`
	HardViolated  int      `json:"hard_violated"`
	Flips         int      `json:"flips"`
	BestFlip      int      `json:"best_flip"`
	TrueQuery     int      `json:"true_query_atoms"`
	Seconds       struct {
		Load, Ground, Solve, Sample, Total float64
	} `json:"seconds"`
	// Of lazy MC-SAT's report.
	Initial     int `json:"initial_ground_clauses"`
	Merged      int `json:"merged_clauses"`
	Convergence struct {
		RHat  float64 `json:"r_hat"`
		Mixed bool    `json:"mixed"`
	} `json:"convergence"`
}

// measured is one run of hinge mln infer.
type measured struct {
	rep     report
	wall    float64
	cpu     float64 // user and system seconds (0 without GNU time)
	rssMB   float64
	exit    int
	note    string // what the run said about its choice, or why it failed
	timeout bool
}

// infer runs hinge mln infer on k with extra arguments, and --flips
// flips (with --noise) unless flips is 0.
func (c *config) infer(ctx context.Context, k *kb, flips int, extra ...string) (*measured, error) {
	repPath := filepath.Join(c.work, "report.json")
	os.Remove(repPath)
	args := append([]string{"mln", "infer", "-i", k.prog, "-e", k.evidence, "-q", strings.Join(k.query, ","),
		"-r", filepath.Join(c.work, "result.txt"), "--report", repPath, "--quiet",
		"--memory-limit", c.memLimit, "--seed", strconv.FormatUint(c.seed, 10)}, extra...)
	if flips > 0 { // 0: the run does not walk (--flips 0 is refused)
		args = append(args, "--flips", strconv.Itoa(flips), "--noise", strconv.FormatFloat(c.noise, 'g', -1, 64))
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	// Linux gives a child started from this process at least this
	// process's own peak RSS (the generated data); GNU time, itself small,
	// measures the child alone.
	rssFile := filepath.Join(c.work, "rss.txt")
	os.Remove(rssFile)
	cmd := exec.CommandContext(ctx, c.hinge, args...)
	if timeBin, err := exec.LookPath("/usr/bin/time"); err == nil {
		cmd = exec.CommandContext(ctx, timeBin, append([]string{"-f", "%U %S %M", "-o", rssFile, c.hinge}, args...)...)
	}
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	t0 := time.Now()
	err := cmd.Run()
	m := &measured{wall: time.Since(t0).Seconds()}
	if cmd.ProcessState != nil {
		m.exit = cmd.ProcessState.ExitCode()
		if b, err := os.ReadFile(rssFile); err == nil {
			fs := strings.Fields(string(b)) // "Command exited with non-zero status 1" comes first then
			if len(fs) >= 3 {
				if kb, err := strconv.ParseFloat(fs[len(fs)-1], 64); err == nil {
					m.rssMB = kb / 1024
				}
				u, uerr := strconv.ParseFloat(fs[len(fs)-3], 64)
				sy, serr := strconv.ParseFloat(fs[len(fs)-2], 64)
				if uerr == nil && serr == nil {
					m.cpu = u + sy
				}
			}
		} else if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			m.rssMB = float64(ru.Maxrss) / 1024 // KiB on Linux; an upper bound (see above)
		}
	}
	fmt.Fprintf(c.stderr, "  %s", stderr.String())
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, "note:") || strings.HasPrefix(l, "hinge: ") || strings.HasPrefix(l, "Error") {
			m.note = strings.TrimSpace(l)
		}
	}
	switch {
	case ctx.Err() != nil:
		m.timeout = true
		m.note = fmt.Sprintf("stopped after %s", c.timeout)
		return m, nil
	case err != nil && m.exit == 0:
		return nil, err
	}
	if b, rerr := os.ReadFile(repPath); rerr == nil {
		if err := json.Unmarshal(b, &m.rep); err != nil {
			return nil, fmt.Errorf("%s: %w", repPath, err)
		}
	}
	return m, nil
}

// row formats a run for the tables.
func row(what string, k *kb, m *measured) []string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
	if m.timeout || m.rep.Method == "" {
		return []string{what, strconv.Itoa(k.entities), strconv.Itoa(k.facts), strconv.Itoa(k.clauses), "", "", "", "", "", "", "", "", "", "", "", f(m.wall), f(m.rssMB), strconv.Itoa(m.exit), m.note}
	}
	r := m.rep
	bytesPer := ""
	if r.GroundClauses > 0 {
		bytesPer = strconv.FormatFloat(m.rssMB*(1<<20)/float64(r.GroundClauses), 'f', 0, 64)
	}
	bound := "" // none (lazy MaxWalkSAT)
	if r.LowerBound != nil {
		bound = strconv.FormatFloat(*r.LowerBound, 'f', 1, 64)
	}
	method := r.Method
	if r.Lazy {
		method += " (lazy)"
	}
	return []string{what, strconv.Itoa(k.entities), strconv.Itoa(k.facts), strconv.Itoa(k.clauses), method,
		strconv.Itoa(r.GroundClauses), strconv.FormatFloat(r.CrossProduct, 'e', 2, 64), strconv.Itoa(r.Unknowns),
		strconv.FormatFloat(r.AllUnknowns, 'e', 2, 64), strconv.FormatFloat(r.Cost, 'f', 1, 64), bound, strconv.Itoa(r.HardViolated),
		strconv.Itoa(r.Flips), f(r.Seconds.Ground), f(r.Seconds.Solve), f(m.wall), f(m.rssMB), strconv.Itoa(m.exit), bytesPer + noteSuffix(m.note)}
}

func noteSuffix(note string) string {
	if note == "" {
		return ""
	}
	return " " + note
}

var header = []string{"case", "entities", "facts", "clauses", "method", "ground_clauses_built", "cross_product",
	"atoms_in_play", "unknown_atoms", "cost", "cost_lower_bound", "hard_violated", "flips", "ground_s", "search_s", "wall_s", "peak_rss_mb", "exit", "rss_bytes_per_clause_or_note"}

// kbRuns generates and runs the knowledge bases of sizes.
func (c *config) kbRuns(ctx context.Context, sizes string) error {
	rows := [][]string{header}
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < community {
			return fmt.Errorf("-sizes: %q is not a number of entities >= %d", s, community)
		}
		dir := filepath.Join(c.work, "kb"+s)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		t0 := time.Now()
		k, err := generateKB(dir, n, c.seed)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.stderr, "mlnkb: kb of %d entities, %d facts, %d clauses generated in %.1f s; hinge mln infer --lazy ...\n", n, k.facts, k.clauses, time.Since(t0).Seconds())
		// The default (cutting planes over the LP relaxation), then lazy
		// MaxWalkSAT.
		m, err := c.infer(ctx, k, 0, "--lazy")
		if err != nil {
			return err
		}
		rows = append(rows, row("kb", k, m))
		if m, err = c.infer(ctx, k, c.flipsPerEntity*n, "--lazy", "--method", "maxwalksat"); err != nil {
			return err
		}
		rows = append(rows, row("kb", k, m))
	}
	results.Markdown(c.stdout, rows)
	return results.WriteCSV(filepath.Join(c.out, "kb.csv"), rows)
}

// kinship generates the kinship knowledge base and runs it lazily and as
// hinge mln infer chooses by itself.
func (c *config) kinship(ctx context.Context, people int) error {
	data := c.data
	if data == "" {
		var err error
		if data, err = shareddata.Dir(); err != nil {
			return err
		}
	}
	dir := filepath.Join(c.work, "kinship")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	k, err := generateKinship(dir, filepath.Join(data, "kinship-mln", "S5", "rules"), people, c.seed)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "mlnkb: kinship of %d people, %d facts, %d clauses\n", k.entities, k.facts, k.clauses)
	rows := [][]string{header}
	for _, mode := range []struct {
		name  string
		extra []string
	}{{"kinship --lazy", []string{"--lazy"}}, {"kinship (chosen by itself)", nil}} {
		fmt.Fprintf(c.stderr, "mlnkb: hinge mln infer %s ...\n", strings.Join(mode.extra, " "))
		m, err := c.infer(ctx, k, 0, mode.extra...) // the default method: cutting planes, no walk
		if err != nil {
			return err
		}
		rows = append(rows, row(mode.name, k, m))
	}
	results.Markdown(c.stdout, rows)
	return results.WriteCSV(filepath.Join(c.out, "kinship.csv"), rows)
}

var marginalHeader = []string{"case", "entities", "facts", "clauses", "samples", "chains", "burn_in", "ground_clauses_built", "initial_ground_clauses",
	"merged_clauses", "cross_product", "atoms_active", "unknown_atoms", "r_hat", "mixed", "ground_s", "sample_s", "wall_s", "cpu_s", "peak_rss_mb", "exit", "note"}

// marginals runs lazy MC-SAT on the kb generator's knowledge bases.
func (c *config) marginals(ctx context.Context, sizes string, samples, burnIn, chains int) error {
	rows := [][]string{marginalHeader}
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < community {
			return fmt.Errorf("-marginal-sizes: %q is not a number of entities >= %d", s, community)
		}
		dir := filepath.Join(c.work, "kb"+s)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		k, err := generateKB(dir, n, c.seed)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.stderr, "mlnkb: kb of %d entities, %d facts; hinge mln infer --lazy --marginal --samples %d --chains %d --burn-in %d ...\n", n, k.facts, samples, chains, burnIn)
		m, err := c.infer(ctx, k, 0, "--lazy", "--marginal", "--samples", strconv.Itoa(samples), "--chains", strconv.Itoa(chains), "--burn-in", strconv.Itoa(burnIn))
		if err != nil {
			return err
		}
		f := func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
		r := m.rep
		row := []string{"kb marginals", strconv.Itoa(k.entities), strconv.Itoa(k.facts), strconv.Itoa(k.clauses), strconv.Itoa(samples), strconv.Itoa(chains), strconv.Itoa(burnIn)}
		if m.timeout || !r.Lazy {
			row = append(row, "", "", "", "", "", "", "", "", "", "", f(m.wall), f(m.cpu), f(m.rssMB), strconv.Itoa(m.exit), m.note)
		} else {
			row = append(row, strconv.Itoa(r.GroundClauses), strconv.Itoa(r.Initial), strconv.Itoa(r.Merged), strconv.FormatFloat(r.CrossProduct, 'e', 2, 64),
				strconv.Itoa(r.Unknowns), strconv.FormatFloat(r.AllUnknowns, 'e', 2, 64), strconv.FormatFloat(r.Convergence.RHat, 'f', 3, 64),
				strconv.FormatBool(r.Convergence.Mixed), f(r.Seconds.Ground), f(r.Seconds.Sample), f(m.wall), f(m.cpu), f(m.rssMB), strconv.Itoa(m.exit), m.note)
		}
		rows = append(rows, row)
	}
	results.Markdown(c.stdout, rows)
	return results.WriteCSV(filepath.Join(c.out, "marginals.csv"), rows)
}
