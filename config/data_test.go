package config

import (
	"os"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/store"
)

func TestDataFileErrors(t *testing.T) {
	const decl = "predicates:\n  Knows/2: open\n  Lived/2: closed\n"
	ok := map[string]string{"k.txt": "a\tb\n", "l.txt": "a\tx\n"}
	with := func(data string, extra ...string) map[string]string {
		files := map[string]string{"x.data": data}
		for k, v := range ok {
			files[k] = v
		}
		for i := 0; i+1 < len(extra); i += 2 {
			files[extra[i]] = extra[i+1]
		}
		return files
	}
	runConfigErrors(t, "x.data", []configErrorCase{
		{name: "unknown predicate in a section",
			files: with(decl + "observations:\n  Knows: k.txt\n  Friends: k.txt\n"),
			want:  `x.data:6:3: observations: unknown predicate "Friends" (declared: Knows/2, Lived/2)`},
		{name: "bad arity",
			files: with("predicates:\n  Knows/x: open\n"),
			want:  `x.data:2:3: bad predicate "Knows/x": the arity after '/' must be a whole number >= 1, e.g. Knows/2`},
		{name: "zero arity",
			files: with("predicates:\n  Knows/0: open\n"),
			want:  `x.data:2:3: bad predicate "Knows/0"`},
		{name: "bad name",
			files: with("predicates:\n  2Knows/2: open\n"),
			want:  `x.data:2:3: bad predicate "2Knows/2": want Name/arity with Name an identifier`},
		{name: "no arity",
			files: with("predicates:\n  Knows: open\n"),
			want:  `x.data:2:3: predicate "Knows": give its arity as Name/arity, e.g. Knows/2`},
		{name: "open misspelt",
			files: with("predicates:\n  Knows/2: opne\n"),
			want:  `x.data:2:12: predicate Knows/2: "opne" is not open or closed (did you mean "open"?)`},
		{name: "closed misspelt",
			files: with("predicates:\n  Knows/2: colsed\n"),
			want:  `x.data:2:12: predicate Knows/2: "colsed" is not open or closed (did you mean "closed"?)`},
		{name: "open or closed missing",
			files: with("predicates:\n  Knows/2:\n"),
			want:  `x.data:2:3: predicate Knows/2: say whether it is open or closed`},
		{name: "open and closed",
			files: with("predicates:\n  Knows/2: [open, closed]\n"),
			want:  `x.data:2:19: predicate Knows/2: open or closed given twice`},
		{name: "types do not match arity",
			files: with("predicates:\n  Knows/3: [open, {types: [UniqueIntID, UniqueIntID]}]\n"),
			want:  `x.data:2:3: predicate Knows/3: arity 3 but 2 types`},
		{name: "unknown property",
			files: with("predicates:\n  Knows/2: [open, {kinds: [A]}]\n"),
			want:  `x.data:2:20: predicate Knows/2: unknown property "kinds" (want types)`},
		{name: "declared twice",
			files: with("predicates:\n  Knows/2: open\n  KNOWS/2: closed\n"),
			want:  `x.data:3:3: predicate KNOWS declared twice (first at 2:3)`},
		{name: "targets for a closed predicate",
			files: with(decl + "targets:\n  lived: l.txt\n"),
			want:  `x.data:5:3: targets given for Lived/2, which is declared closed (fully observed) at 3:3; declare it open`},
		{name: "missing data file",
			files: with(decl + "observations:\n  Knows: k.txt\n  Lived:\n    - l.txt\n    - sub/missing.txt\n"),
			want:  `x.data:8:7: observations of Lived/2: missing data file $DIR/sub/missing.txt`},
		{name: "data file is a directory",
			files: with(decl+"truth:\n  Knows: sub\n", "sub/f.txt", ""),
			want:  `x.data:5:10: truth of Knows/2: data file $DIR/sub is a directory`},
		{name: "unknown section",
			files: with(decl + "observation:\n  Knows: k.txt\n"),
			want:  `x.data:4:1: unknown section "observation": want predicates, observations, targets or truth`},
		{name: "no predicates section",
			files: with("observations:\n  Knows: k.txt\n"),
			want:  `x.data: no predicates section`},
		{name: "section is not a mapping",
			files: with(decl + "observations: k.txt\n"),
			want:  `x.data:4:15: observations must map predicate names to files, found "k.txt"`},
		{name: "file entry is not a name",
			files: with(decl + "observations:\n  Knows: [[k.txt]]\n"),
			want:  `x.data:5:11: observations of Knows/2: expected a file name, found a list`},
		{name: "no file given",
			files: with(decl + "observations:\n  Knows:\n"),
			want:  `x.data:5:3: observations of Knows/2: expected a file name or a list of file names`},
		{name: "arity in a section does not match",
			files: with(decl + "observations:\n  Knows/3: k.txt\n"),
			want:  `x.data:5:3: observations: "Knows/3" does not match the declaration Knows/2`},
		{name: "predicate twice in a section",
			files: with(decl + "observations:\n  Knows: k.txt\n  knows: k.txt\n"),
			want:  `x.data:6:3: observations: knows given twice (first at 5:3); list several files as [a.txt, b.txt]`},
		{name: "YAML scanner error",
			files: with("predicates:\n  Knows/2: open\n  x: y: z\n"),
			want:  `x.data:3: YAML: mapping values are not allowed in this context`},
		{name: "YAML syntax",
			files: with("predicates:\n  Knows/2: open\n  bad: [a, b\n"),
			want:  `x.data:3: YAML: did not find expected ',' or ']'`},
		// An entry without its colon: YAML reads it as text running on into
		// the next entry and said "mapping values are not allowed in this
		// context" at the next line (or "could not find expected ':'").
		{name: "predicate without colon before another",
			files: with("predicates:\n  Lived/2\n  Knows/2: open\n"),
			want:  `x.data:2:3: entry "Lived/2" has no colon: say whether it is open or closed, "Lived/2: open" or "Lived/2: closed"`},
		{name: "predicate without colon, comment and blank line between",
			files: with("predicates:\n  Lived/2\n  # people\n\n  Knows/2: open\n"),
			want:  `x.data:2:3: entry "Lived/2" has no colon: say whether`},
		{name: "two predicates without colon",
			files: with("predicates:\n  Lived/2\n  Likes/2\n  Knows/2: open\n"),
			want:  `x.data:2:3: entry "Lived/2" has no colon (nor has line 3): say whether`},
		{name: "last predicate without colon",
			files: with("predicates:\n  Knows/2: open\n  Lived/2\nobservations:\n  Knows: k.txt\n"),
			want:  `x.data:3:3: entry "Lived/2" has no colon: say whether`},
		{name: "predicate and its word without colon",
			files: with("predicates:\n  Lived/2 closed\n  Knows/2: open\n"),
			want:  `x.data:2:3: entry "Lived/2 closed" has no colon: write "Lived/2: closed"`},
		{name: "predicate without colon, with a comment",
			files: with("predicates:\n  Lived/2  # people\n  Knows/2: open\n"),
			want:  `x.data:2:3: entry "Lived/2" has no colon: say whether`},
		{name: "CRLF lines",
			files: with("predicates:\r\n  Lived/2\r\n  Knows/2: open\r\n"),
			want:  `x.data:2:3: entry "Lived/2" has no colon: say whether`},
		{name: "section without colon",
			files: with("predicates\n  Knows/2: open\n"),
			want:  `x.data:1:1: entry "predicates" has no colon: a section is written "predicates:"`},
		{name: "data entry without colon before another",
			files: with(decl + "observations:\n  Knows k.txt\n  Lived: l.txt\n"),
			want:  `x.data:5:3: entry "Knows k.txt" has no colon: write "Knows: k.txt"`},
		{name: "the only predicate without colon",
			files: with("predicates:\n  Lived/2\nobservations:\n  Lived: l.txt\n"),
			want:  `x.data:2:3: predicates must map Name/arity to open or closed, found "Lived/2": if it is an entry, it has no colon: say whether it is open or closed, "Lived/2: open" or "Lived/2: closed"`},
		{name: "the only data entry without colon",
			files: with(decl + "truth:\n  Knows\n"),
			want:  `x.data:5:3: truth must map predicate names to files, found "Knows": if it is an entry, it has no colon: name its data file, "Knows: FILE.txt"`},
		{name: "top level is a list",
			files: with("- predicates\n"),
			want:  `x.data:1:1: a data file is a mapping of sections`},
		{name: "empty",
			files: with("# nothing\n"),
			want:  `x.data: empty data file`},
		{name: "observed and target",
			files: with(decl+"observations:\n  Knows: k.txt\ntargets:\n  Knows: t.txt\n", "t.txt", "c\td\na\tb\n"),
			want:  `$DIR/t.txt:2:1: Knows('a', 'b') is listed both as an observation and as a target`},
		{name: "value outside [0,1]",
			files: with(decl+"observations:\n  Knows: [k.txt, v.txt]\n", "v.txt", "c\td\t0.5\ne\tf\t2\n"),
			want:  `$DIR/v.txt:2:5: truth value 2 is outside [0,1]`},
		{name: "wrong column count in data",
			files: with(decl+"truth:\n  Knows: v.txt\n", "v.txt", "c\td\t0.5\te\n"),
			want:  `$DIR/v.txt:1:1: expected 2 or 3 tab-separated columns for Knows/2, found 4`},
	})
}

// TestDataFileLongForm checks PSL's list form of a declaration.
func TestDataFileLongForm(t *testing.T) {
	src := "predicates:\n  Foo/2: [closed, {types: [UniqueIntID, String]}]\n  Bar:\n    - open\n    - types: [UniqueStringID, Integer, Integer]\n    - block\n"
	cfg, err := parseDataFile("long.data", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := summarize(cfg, nil)
	want := "config long.data partition \"\"\n" +
		"predicate Foo/2 closed at 2:3 types=[UniqueIntID String] block=false options=map[]\n" +
		"predicate Bar/3 open at 3:3 types=[UniqueStringID Integer Integer] block=true options=map[]\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// FuzzReadData: any input gives a config or an error, never a panic.
func FuzzReadData(f *testing.F) {
	seed, err := os.ReadFile("testdata/acq/acq.data")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte("predicates:\n  Foo/2: [closed, {types: [A, B]}]\n  Bar: [open, block, {types: [A]}]\ntargets:\n  bar: [x, y]\n"))
	f.Add([]byte("predicates: &a\n  A/1: open\nobservations: *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := parseDataFile("f.data", data, nil)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.data") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		for _, d := range cfg.Predicates {
			if d.Arity < 1 || d.Name == "" {
				t.Fatalf("bad declaration accepted: %+v", d)
			}
		}
		for _, s := range cfg.Sources {
			d, ok := cfg.Predicate(s.Pred)
			if !ok || s.File == "" || s.Section == store.Targets && d.Closed {
				t.Fatalf("bad source accepted: %+v", s)
			}
		}
	})
}
