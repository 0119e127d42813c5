// Command citations writes Cora or Citeseer in PSL form for collective
// classification (the linqs/psl-examples model) from a seeded random split
// of the papers, and prints the sizes and the neighbour-majority baseline
// accuracy that PSL inference should beat.
//
//	go run ./examples/citations -dataset cora -data ../shared/data/cora -out /tmp/cora -seed 1 [-observed 0.5] [-learn-seed 2]
//
// The evaluation split goes to <out>/eval; with -learn-seed a second,
// independently drawn split for weight learning goes to <out>/learn.
// Exit status: 0 success, 1 a failed run (e.g. writing), 2 bad flags or
// input data.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hinge-srl/hinge/internal/citations"
	"github.com/hinge-srl/hinge/internal/shareddata"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError marks bad flags or input (exit status 2).
type usageError struct{ error }

func run(args []string, stdout, stderr io.Writer) int {
	err := runErr(args, stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	fmt.Fprintln(stderr, "citations:", err)
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

func runErr(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("citations", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("dataset", "", "data set name, the file prefix: cora or citeseer (required)")
	data := fs.String("data", "", "directory holding <dataset>.labels, <dataset>.links, labels.txt (default: <shared data>/<dataset>, the shared data being $HINGE_DATA or ../shared/data beside the module root)")
	out := fs.String("out", "", "output directory; the evaluation split goes to <out>/eval (required)")
	seed := fs.Uint64("seed", 1, "seed of the evaluation split")
	observed := fs.Float64("observed", 0.5, "fraction of papers whose category is observed")
	learnSeed := fs.Uint64("learn-seed", 0, "if set, also write a split drawn with this seed to <out>/learn for weight learning")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	learn := false
	fs.Visit(func(f *flag.Flag) { learn = learn || f.Name == "learn-seed" })
	switch {
	case fs.NArg() > 0:
		return usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	case *name == "":
		return usageError{errors.New("-dataset is required (cora or citeseer)")}
	case *out == "":
		return usageError{errors.New("-out is required")}
	case !(*observed > 0 && *observed < 1):
		return usageError{fmt.Errorf("-observed %v: want a fraction strictly between 0 and 1", *observed)}
	case learn && *learnSeed == *seed:
		return usageError{fmt.Errorf("-learn-seed %d equals -seed: the learning split must be drawn independently", *learnSeed)}
	}
	dir := *data
	if dir == "" {
		root, err := shareddata.Dir()
		if err != nil {
			return usageError{fmt.Errorf("no -data given and %w", err)}
		}
		dir = filepath.Join(root, *name)
	}
	ds, err := citations.Load(dir, *name)
	if err != nil {
		return usageError{err}
	}
	fmt.Fprintf(stdout, "%s: %d papers, %d categories, %d links (from %s)\n", ds.Name, len(ds.Papers), len(ds.Categories), len(ds.Links), dir)

	if err := writeSplit(stdout, ds, "eval", *seed, *observed, filepath.Join(*out, "eval")); err != nil {
		return err
	}
	if learn {
		if err := writeSplit(stdout, ds, "learn", *learnSeed, *observed, filepath.Join(*out, "learn")); err != nil {
			return err
		}
	}
	return nil
}

// writeSplit draws one split, writes it and reports its sizes and baseline.
func writeSplit(w io.Writer, ds *citations.Dataset, kind string, seed uint64, observed float64, dir string) error {
	s, err := citations.NewSplit(ds, seed, observed)
	if err != nil {
		return usageError{err}
	}
	if err := citations.WritePSL(s, dir); err != nil {
		return err
	}
	obs, tgt := len(s.ObservedPapers()), len(s.TargetPapers())
	k := len(ds.Categories)
	acc, preds, err := citations.NeighbourMajority(s)
	if err != nil {
		return err
	}
	rules := map[citations.Rule]int{}
	for _, p := range preds {
		rules[p.Rule]++
	}
	fmt.Fprintf(w, "%s split (seed %d, observed fraction %g): %d observed, %d target papers -> %s\n", kind, seed, observed, obs, tgt, dir)
	fmt.Fprintf(w, "  %s %d atoms, %s %d, %s %d, %s %d; model %s.psl, data %s.data\n",
		citations.LinkObsFile, len(ds.Links), citations.HasCatObsFile, obs*k,
		citations.HasCatTargetFile, tgt*k, citations.HasCatTruthFile, tgt*k, ds.Name, ds.Name)
	fmt.Fprintf(w, "  neighbour-majority baseline: accuracy %.4f on %d target papers (majority %d, tie %d, no observed neighbour %d)\n",
		acc, tgt, rules[citations.Majority], rules[citations.Tie], rules[citations.Fallback])
	return nil
}
