// Package citations turns the LINQS citation networks (Cora, Citeseer) into
// PSL's collective-classification problem (the model of linqs/psl-examples
// cora/citeseer: predicates Link/2 closed and HasCat/2 open), and computes a
// neighbour-majority baseline to compare inference against.
//
// A data set directory holds <name>.labels (`<paper>\t<category>`),
// <name>.links (`<citing>\t<cited>`, PSL's Link(A, B)) and labels.txt
// (`<category>\t<category name>`); see shared/data/SOURCES.md.
package citations

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Dataset is a citation network with one category per paper.
type Dataset struct {
	// Name is the file prefix, e.g. "cora".
	Name string
	// Papers are the paper ids in the order of <name>.labels.
	Papers []string
	// Categories are the category ids in the order of labels.txt (for
	// Cora and Citeseer "1".."K"); CategoryNames their names.
	Categories    []string
	CategoryNames []string
	// Label[i] is the index in Categories of paper i's category.
	Label []int
	// Links are the citations in file order, as indexes into Papers.
	Links []Link
}

// Link is one citation, Link(From, To): paper From cites paper To.
type Link struct{ From, To int }

// Load reads data set name from dir. Errors name file:line:col and what is
// wrong: a malformed line, an unknown category or paper, a paper labelled
// twice, a repeated link. Empty lines are skipped; a self-link is kept
// (the baseline ignores it; the PSL model's A != B excludes it).
func Load(dir, name string) (*Dataset, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return nil, fmt.Errorf("data set name %q: want a plain file prefix such as \"cora\"", name)
	}
	ds := &Dataset{Name: name}

	catIndex := map[string]int{}
	catsPath := filepath.Join(dir, "labels.txt")
	err := readTSV(catsPath, func(ln int, f []field) error {
		if len(f) != 2 {
			return posErr(catsPath, ln, 1, "want 2 tab-separated fields (category id, name), got %d", len(f))
		}
		if f[0].s == "" {
			return posErr(catsPath, ln, 1, "empty category id")
		}
		if strings.ContainsAny(f[0].s, `'\`) {
			return posErr(catsPath, ln, 1, "category id %q contains a quote or backslash", f[0].s)
		}
		if prev, dup := catIndex[f[0].s]; dup {
			return posErr(catsPath, ln, 1, "category %q already defined (as %q)", f[0].s, ds.CategoryNames[prev])
		}
		catIndex[f[0].s] = len(ds.Categories)
		ds.Categories = append(ds.Categories, f[0].s)
		ds.CategoryNames = append(ds.CategoryNames, f[1].s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(ds.Categories) == 0 {
		return nil, fmt.Errorf("%s: no categories", catsPath)
	}

	paperIndex := map[string]int{}
	paperLine := []int{}
	labelsPath := filepath.Join(dir, name+".labels")
	err = readTSV(labelsPath, func(ln int, f []field) error {
		if len(f) != 2 {
			return posErr(labelsPath, ln, 1, "want 2 tab-separated fields (paper, category), got %d", len(f))
		}
		if f[0].s == "" {
			return posErr(labelsPath, ln, 1, "empty paper id")
		}
		if prev, dup := paperIndex[f[0].s]; dup {
			return posErr(labelsPath, ln, 1, "paper %q already labelled at line %d", f[0].s, paperLine[prev])
		}
		c, ok := catIndex[f[1].s]
		if !ok {
			return posErr(labelsPath, ln, f[1].col, "unknown category %q (labels.txt defines %s)", f[1].s, strings.Join(ds.Categories, ", "))
		}
		paperIndex[f[0].s] = len(ds.Papers)
		paperLine = append(paperLine, ln)
		ds.Papers = append(ds.Papers, f[0].s)
		ds.Label = append(ds.Label, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(ds.Papers) == 0 {
		return nil, fmt.Errorf("%s: no papers", labelsPath)
	}

	linkLine := map[Link]int{}
	linksPath := filepath.Join(dir, name+".links")
	err = readTSV(linksPath, func(ln int, f []field) error {
		if len(f) != 2 {
			return posErr(linksPath, ln, 1, "want 2 tab-separated fields (citing paper, cited paper), got %d", len(f))
		}
		var l [2]int
		for k := range 2 {
			p, ok := paperIndex[f[k].s]
			if !ok {
				return posErr(linksPath, ln, f[k].col, "unknown paper %q (not in %s.labels)", f[k].s, name)
			}
			l[k] = p
		}
		link := Link{l[0], l[1]}
		if prev, dup := linkLine[link]; dup {
			return posErr(linksPath, ln, 1, "link %s -> %s repeats line %d", f[0].s, f[1].s, prev)
		}
		linkLine[link] = ln
		ds.Links = append(ds.Links, link)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ds, nil
}

// field is one tab-separated field and its 1-based byte column.
type field struct {
	s   string
	col int
}

// readTSV calls fn for every non-empty line of path with its 1-based line
// number and fields. A trailing "\r" is dropped; a missing final newline is
// fine.
func readTSV(path string, fn func(line int, fields []field) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	var fields []field
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		fields = fields[:0]
		col := 1
		for s := range strings.SplitSeq(line, "\t") {
			fields = append(fields, field{s, col})
			col += len(s) + 1
		}
		if err := fn(ln, fields); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s: a line is longer than 16 MiB", path)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func posErr(path string, line, col int, format string, args ...any) error {
	return fmt.Errorf("%s:%d:%d: %s", path, line, col, fmt.Sprintf(format, args...))
}
