package hinge

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// projectHistory matches words that speak of how the project's work was
// planned rather than of what the software does: the tracker's issues, the
// numbered files of the project's paper collection, a work session or its
// brief, the project's file of peers' figures (ANCHORS.md, /work/shared:
// cite a peer's figure by what it is, such as "Alchemy 2's figure measured
// on this kind of machine") and its targets ("the 5x target"). User documentation (READMEs, package documentation and the
// documentation of exported names) cites papers by authors and title and
// says what the software does; comments inside function bodies and test
// files may keep such notes.
var projectHistory = regexp.MustCompile(`(?i)\bpapers? 0\d\d\b|\bissues? #?\d+|\bthe issue(?:'s)?\b|\bissue notes\b|\bthis session\b|\bthe brief(?:'s)?\b|\(#\d+\)` +
	`|\bANCHORS\.md\b|/work/shared\b|\b\d+(?:\.\d+)?x target\b|\b(?:a|the) target of \d`)

// historyHits returns "where: text" for every line of text that
// projectHistory matches.
func historyHits(where string, line int, text string) []string {
	var out []string
	for i, l := range strings.Split(text, "\n") {
		if m := projectHistory.FindString(l); m != "" {
			out = append(out, where+":"+strconv.Itoa(line+i)+": "+strings.TrimSpace(l)+"  ("+m+")")
		}
	}
	return out
}

// repoFiles walks the repository from its root (this package's directory)
// and returns the files for which keep is true, skipping testdata and
// hidden directories.
func repoFiles(t *testing.T, keep func(path string) bool) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && keep(path) {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUserDocsSayWhatTheSoftwareDoes checks every Markdown file, every
// package's documentation, the documentation of every exported name and of
// every Example function (bench/ included: its programs and READMEs are
// read by users too) for words about the project's own history
// (projectHistory).
func TestUserDocsSayWhatTheSoftwareDoes(t *testing.T) {
	var hits []string
	for _, path := range repoFiles(t, func(p string) bool { return strings.HasSuffix(p, ".md") }) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		hits = append(hits, historyHits(path, 1, string(b))...)
	}
	fset := token.NewFileSet()
	goFiles := repoFiles(t, func(p string) bool { return strings.HasSuffix(p, ".go") })
	if len(goFiles) == 0 {
		t.Fatal("no Go files found")
	}
	for _, path := range goFiles {
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		var docs []*ast.CommentGroup
		switch {
		case strings.HasSuffix(path, "_test.go"):
			docs = exampleDocs(f) // go doc and pkg.go.dev show them
		case f.Name.Name == "main" && strings.HasPrefix(filepath.ToSlash(path), "bench/"):
			// A benchmark program's functions are its experiments,
			// read beside its README.
			docs = topLevelDocs(f)
		default:
			docs = exportedDocs(f)
		}
		for _, g := range docs {
			hits = append(hits, historyHits(path, fset.Position(g.Pos()).Line, g.Text())...)
		}
	}
	if len(hits) > 0 {
		t.Errorf("user documentation speaks of the project's history (cite papers by authors and title; say what the software does):\n%s", strings.Join(hits, "\n"))
	}
}

// exportedDocs returns the package documentation of f and the doc comments
// of its exported declarations: functions and methods, types, constants and
// variables, exported struct fields and interface methods.
func exportedDocs(f *ast.File) []*ast.CommentGroup {
	var out []*ast.CommentGroup
	add := func(g *ast.CommentGroup) {
		if g != nil {
			out = append(out, g)
		}
	}
	add(f.Doc)
	fields := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, fd := range fl.List {
			for _, n := range fd.Names {
				if n.IsExported() {
					add(fd.Doc)
					add(fd.Comment)
					break
				}
			}
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() {
				add(d.Doc)
			}
		case *ast.GenDecl:
			exported := false
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						exported = true
						add(s.Doc)
						switch tt := s.Type.(type) {
						case *ast.StructType:
							fields(tt.Fields)
						case *ast.InterfaceType:
							fields(tt.Methods)
						}
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							exported = true
							add(s.Doc)
							add(s.Comment)
							break
						}
					}
				}
			}
			if exported {
				add(d.Doc)
			}
		}
	}
	return out
}

// topLevelDocs returns the package documentation of f and the doc
// comments of all its top-level declarations, exported or not.
func topLevelDocs(f *ast.File) []*ast.CommentGroup {
	out := []*ast.CommentGroup{}
	if f.Doc != nil {
		out = append(out, f.Doc)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Doc != nil {
				out = append(out, d.Doc)
			}
		case *ast.GenDecl:
			if d.Doc != nil {
				out = append(out, d.Doc)
			}
		}
	}
	return out
}

// exampleDocs returns the doc comments of a test file's Example functions.
func exampleDocs(f *ast.File) []*ast.CommentGroup {
	var out []*ast.CommentGroup
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Example") && fd.Doc != nil {
			out = append(out, fd.Doc)
		}
	}
	return out
}

func TestProjectHistoryPattern(t *testing.T) {
	for _, tc := range []struct {
		text string
		hit  bool
	}{
		{"PPLL, paper 002 eq. (7)", true},
		{"(Srinivasan et al., AAAI 2019: paper 000, sections 2.2 and 3)", true},
		{"0.4-0.7 s before issue 24 made it sequential", true},
		{"the issue's 5x target", true},
		{"Issue 24 replaced the earlier version", true},
		{"kept as written since this session", true},
		{"ADMM adapts its penalty by default (#21)", true},
		{"the grid here is the brief's range", true},
		{"The peers' figures are ANCHORS.md's", true},
		{"took 185 ms a sample (`../shared/ANCHORS.md`)", true},
		{"These rows come from `/work/shared/ANCHORS.md`", true},
		{"not within the 5x target", true},
		{"socialTarget measures the target of 1.5x", true},
		{"against a target of 15 ns for the whole iteration", true},
		{"open predicates with target atoms", false},
		{"the target predicate of 2 arguments", false},
		{"5x the in-memory grounder's time", false},
		{"Embar, Sridhar, Farnadi and Getoor, eq. (7)", false},
		{"one paper 0f each category", false},
		{"a query issues one join per rule", false},
		{"papers 1,354 of Cora", false},
	} {
		if got := projectHistory.MatchString(tc.text); got != tc.hit {
			t.Errorf("%q: match %v, want %v", tc.text, got, tc.hit)
		}
	}
}
