package citations

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/hinge-srl/hinge/eval"
	"github.com/hinge-srl/hinge/internal/atomicfile"
)

// The files WritePSL writes, besides <name>.psl and <name>.data.
const (
	LinkObsFile      = "link_obs.txt"
	HasCatObsFile    = "hasCat_obs.txt"
	HasCatTargetFile = "hasCat_targets.txt"
	HasCatTruthFile  = "hasCat_truth.txt"
)

// check reports a Split whose fields do not fit its data set.
func (s *Split) check() error {
	if s == nil || s.Dataset == nil {
		return fmt.Errorf("split has no data set")
	}
	if len(s.Observed) != len(s.Dataset.Papers) {
		return fmt.Errorf("split marks %d papers, data set %s has %d", len(s.Observed), s.Dataset.Name, len(s.Dataset.Papers))
	}
	obs := 0
	for _, o := range s.Observed {
		if o {
			obs++
		}
	}
	if obs == 0 || obs == len(s.Observed) {
		return fmt.Errorf("split of %s has %d observed and %d target papers; want at least one of each", s.Dataset.Name, obs, len(s.Observed)-obs)
	}
	return nil
}

// WritePSL writes the split in PSL form into outDir (created if missing),
// every file atomically and in a deterministic order (papers by id,
// numerically when ids are integers; categories in labels.txt order):
//
//   - link_obs.txt: every link, `A\tB\t1` (Link is closed and fully observed)
//   - hasCat_obs.txt: every observed paper x every category, `P\tC\t1` for
//     its category and `P\tC\t0` for the others
//   - hasCat_targets.txt: every target paper x every category, `P\tC`
//   - hasCat_truth.txt: every target paper x every category, 1 or 0
//   - <name>.psl: the collective-classification model (see Model)
//   - <name>.data: the PSL .data YAML naming those files, relative to it
func WritePSL(s *Split, outDir string) error {
	if err := s.check(); err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	ds := s.Dataset
	links := slices.Clone(ds.Links)
	slices.SortFunc(links, func(a, b Link) int {
		if c := eval.CompareArg(ds.Papers[a.From], ds.Papers[b.From]); c != 0 {
			return c
		}
		return eval.CompareArg(ds.Papers[a.To], ds.Papers[b.To])
	})
	obs, tgt := s.ObservedPapers(), s.TargetPapers()

	files := []struct {
		name string
		fill func(w *bufio.Writer)
	}{
		{LinkObsFile, func(w *bufio.Writer) {
			for _, l := range links {
				w.WriteString(ds.Papers[l.From] + "\t" + ds.Papers[l.To] + "\t1\n")
			}
		}},
		{HasCatObsFile, func(w *bufio.Writer) { writeHasCat(w, ds, obs, true) }},
		{HasCatTargetFile, func(w *bufio.Writer) { writeHasCat(w, ds, tgt, false) }},
		{HasCatTruthFile, func(w *bufio.Writer) { writeHasCat(w, ds, tgt, true) }},
		{ds.Name + ".psl", func(w *bufio.Writer) { w.WriteString(Model(ds)) }},
		{ds.Name + ".data", func(w *bufio.Writer) { writeData(w, s) }},
	}
	for _, f := range files {
		err := atomicfile.Write(filepath.Join(outDir, f.name), func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			f.fill(bw)
			return bw.Flush()
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// writeHasCat writes papers x categories, with a 1/0 truth column when
// withValue is set.
func writeHasCat(w *bufio.Writer, ds *Dataset, papers []int, withValue bool) {
	for _, p := range papers {
		for c, cat := range ds.Categories {
			w.WriteString(ds.Papers[p])
			w.WriteByte('\t')
			w.WriteString(cat)
			if withValue {
				if ds.Label[p] == c {
					w.WriteString("\t1")
				} else {
					w.WriteString("\t0")
				}
			}
			w.WriteByte('\n')
		}
	}
}

// Model returns the PSL collective-classification model of
// linqs/psl-examples (cora/cli/cora.json, citeseer/cli/citeseer.json) with
// one per-category rule for each of the data set's categories (the
// psl-examples Citeseer model lists seven for six categories), all weights
// 1.0 as there, the functional constraint and the 0.001 negative prior.
func Model(ds *Dataset) string {
	var b []byte
	b = fmt.Appendf(b, "// Collective classification of %s (%d categories): the model of linqs/psl-examples cora/cli/cora.json.\n", ds.Name, len(ds.Categories))
	b = append(b, "\n// Neighbour has category => has category.\n"...)
	b = append(b, "1.0: HasCat(A, C) & Link(A, B) & (A != B) >> HasCat(B, C) ^2\n"...)
	b = append(b, "1.0: HasCat(A, C) & Link(B, A) & (A != B) >> HasCat(B, C) ^2\n"...)
	b = append(b, "\n// Per-category rules.\n"...)
	for _, c := range ds.Categories {
		b = fmt.Appendf(b, "1.0: HasCat(A, '%s') & Link(A, B) >> HasCat(B, '%s') ^2\n", c, c)
	}
	b = append(b, "\n// Every paper has exactly one category.\n"...)
	b = append(b, "HasCat(A, +C) = 1 .\n"...)
	b = append(b, "\n// Prior.\n"...)
	b = append(b, "0.001: !HasCat(A, N) ^2\n"...)
	return string(b)
}

// writeData writes the PSL .data YAML with file paths relative to it.
func writeData(w *bufio.Writer, s *Split) {
	fmt.Fprintf(w, "# %s: %d papers, observed fraction %s, seed %d.\n", s.Dataset.Name, len(s.Dataset.Papers),
		strconv.FormatFloat(s.ObservedFraction, 'g', -1, 64), s.Seed)
	fmt.Fprintf(w, `predicates:
  Link/2: closed
  HasCat/2: open

observations:
  Link: %s
  HasCat: %s

targets:
  HasCat: %s

truth:
  HasCat: %s
`, LinkObsFile, HasCatObsFile, HasCatTargetFile, HasCatTruthFile)
}

// WriteSplitPSL loads the data set name from dir (Load), draws a split
// (NewSplit) and writes its PSL files to outDir (WritePSL): <outDir>/<name>.psl
// and <name>.data with their atom files.
func WriteSplitPSL(dir, name string, seed uint64, observedFraction float64, outDir string) (*Split, error) {
	ds, err := Load(dir, name)
	if err != nil {
		return nil, err
	}
	s, err := NewSplit(ds, seed, observedFraction)
	if err != nil {
		return nil, err
	}
	return s, WritePSL(s, outDir)
}
