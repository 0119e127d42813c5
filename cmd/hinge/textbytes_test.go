package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestByteOrderMark feeds a file that starts with a UTF-8 byte-order mark
// to every reader hinge has (.psl, .data, TSV, JSON, .mln, .db, .rrf, WCNF,
// the exchange format, kgc triples) through the command that reads it. Every
// reader skips the mark alike: a good file gives the output it gives without
// the mark, and a file with a mistake on its first line gives the same
// message, at the same line and column, as without the mark; a mark after
// the start is refused at its line and column by every reader.
func TestByteOrderMark(t *testing.T) {
	psl := "1: Friends(A, B) & Smokes(A) -> Smokes(B)\n"
	data := "predicates:\n  Friends/2: closed\n  Smokes/1: open\nobservations:\n  Friends: friends.tsv\n  Smokes: smokes.tsv\ntargets:\n  Smokes: targets.tsv\n"
	program := map[string]string{
		"m.psl": psl, "d.data": data,
		"friends.tsv": "a\tb\n", "smokes.tsv": "a\n", "targets.tsv": "b\n",
	}
	json := `{"rules": ["1: Friends(A, B) & Smokes(A) -> Smokes(B)"], "predicates": {"Friends/2": {"observations": {"infer": [["a", "b"]]}}, "Smokes/1": {"observations": {"infer": [["a"]]}, "targets": {"infer": [["b"]]}}}}` + "\n"
	mln := "Friends(person, person)\nSmokes(person)\nCancer(person)\n1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n"
	db := "Friends(Anna, Bob)\nSmokes(Anna)\n"
	rrf := "*Friends(person, person)\nSmokes(person)\nCancer(person)\nroot = -3 * sum(x) NotImplied(x) + 0.5 * sum(x, y) Pair(x, y)\nNotImplied(x) = 4 * Smokes(x) + 4 * !Cancer(x)\nPair(x, y) = 3 * Friends(x, y) + 3 * Smokes(y)\n"
	wcnf := "p wcnf 3 3 10\n3 1 -2 0\n2 2 3 0\n10 -1 -3 0\n"
	exchange := "# variables: 2\n0.5 0:-1 1:1 #^2\n1 0:1\n"
	triples := "a\tr\tb\nb\tr\tc\nc\tr\ta\nb\tr\ta\nc\tr\tb\na\tr\tc\n"
	kgc := map[string]string{"train.txt": triples, "valid.txt": "a\tr\tb\n", "test.txt": "b\tr\tc\n"}
	kgcArgs := []string{"kgc", "--train", "train.txt", "--valid", "valid.txt", "--test", "test.txt", "--predictions", "p.txt", "--min-support", "1", "--quiet"}

	tests := []struct {
		reader string
		files  map[string]string // the command's input files
		args   []string          // the command, with paths relative to the files' directory
		file   string            // the file given a byte-order mark
		bad    string            // its content with a mistake on line 1
	}{
		{".psl", program, []string{"ground", "-m", "m.psl", "-d", "d.data"}, "m.psl", "1: Friends(A, B) & Smokes(A) -> Smokes(B) & \n"},
		{".data", program, []string{"ground", "-m", "m.psl", "-d", "d.data"}, "d.data", "predicatez:\n  Friends/2: closed\n"},
		{"TSV", program, []string{"ground", "-m", "m.psl", "-d", "d.data"}, "friends.tsv", "a\tb\tc\td\n"},
		{"JSON", map[string]string{"c.json": json}, []string{"ground", "--config", "c.json"}, "c.json", `{"rules": 5}` + "\n"},
		{".mln", map[string]string{"p.mln": mln, "e.db": db}, []string{"mln", "infer", "-i", "p.mln", "-e", "e.db", "-q", "Cancer", "--quiet"}, "p.mln", "Friends(person, person\n"},
		{".db", map[string]string{"p.mln": mln, "e.db": db}, []string{"mln", "infer", "-i", "p.mln", "-e", "e.db", "-q", "Cancer", "--quiet"}, "e.db", "Friends(Anna)\n"},
		{".rrf", map[string]string{"m.rrf": rrf, "e.db": db}, []string{"rrf", "infer", "-i", "m.rrf", "-e", "e.db", "-q", "Cancer", "--method", "icm"}, "m.rrf", "*Friends(person, person\n"},
		{"WCNF", map[string]string{"f.wcnf": wcnf}, []string{"maxsat", "f.wcnf", "--quiet"}, "f.wcnf", "p wcnf x 3 10\n"},
		{"exchange", map[string]string{"g.txt": exchange}, []string{"solve", "g.txt", "--quiet"}, "g.txt", "# variables: x\n"},
		{"kgc triples", kgc, kgcArgs, "train.txt", "a\tr\n"},
	}
	times := regexp.MustCompile(`[0-9.]+(e-?[0-9]+)? ?(s|ms|µs)\b`)
	for _, tc := range tests {
		t.Run(tc.reader, func(t *testing.T) {
			// run runs the command over the files with content as tc.file.
			run := func(content string) (int, string) {
				t.Helper()
				files := map[string]string{}
				for k, v := range tc.files {
					files[k] = v
				}
				files[tc.file] = content
				dir := writeFiles(t, files)
				args := make([]string, len(tc.args))
				for i, a := range tc.args {
					if _, ok := files[a]; ok || a == "p.txt" {
						a = dir + "/" + a
					}
					args[i] = a
				}
				code, out, errs := runCLI(t, args...)
				var kept []string
				for _, l := range strings.Split(strings.ReplaceAll(out+errs, dir+"/", ""), "\n") {
					if !strings.Contains(l, "seconds") { // timings
						kept = append(kept, times.ReplaceAllString(l, "T"))
					}
				}
				return code, strings.Join(kept, "\n")
			}
			const bom = "\ufeff"
			code, plain := run(tc.files[tc.file])
			if code != 0 {
				t.Fatalf("without a mark: exit %d:\n%s", code, plain)
			}
			if code, marked := run(bom + tc.files[tc.file]); code != 0 || marked != plain {
				t.Errorf("with a mark: exit %d:\n%s\nwithout:\n%s", code, marked, plain)
			}
			code, plain = run(tc.bad)
			if code != 2 || !strings.Contains(plain, tc.file+":1:") {
				t.Fatalf("the mistake without a mark: exit %d, want 2 and a message at %s:1:\n%s", code, tc.file, plain)
			}
			if code, marked := run(bom + tc.bad); code != 2 || marked != plain {
				t.Errorf("the mistake with a mark: exit %d:\n%s\nwithout:\n%s", code, marked, plain)
			}
			// A mark after the start (two marked files joined with cat)
			// is refused where it is, not made part of a name.
			good := tc.files[tc.file]
			nl := strings.IndexByte(good, '\n') + 1
			joined := bom + good[:nl] + bom + good[nl:]
			if code, out := run(joined); code != 2 || !strings.Contains(out, tc.file+":2:1: a byte-order mark (U+FEFF) after the start") {
				t.Errorf("a mark at the start of line 2: exit %d, want 2 and the mark named at %s:2:1:\n%s", code, tc.file, out)
			}
		})
	}
}

// TestTextBytes: a NUL character or bytes that are not UTF-8 in a constant,
// raw or made by an escape, are refused by every reader at their file, line
// and column, with exit status 2, before any work: under --db before
// connecting (PostgreSQL's text holds neither; it used to refuse them after
// the connection, exit 1).
func TestTextBytes(t *testing.T) {
	t.Setenv(dbEnv, "")
	const unreachable = "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=5"
	data := "predicates:\n  Friends/2: closed\n  Smokes/1: open\nobservations:\n  Friends: friends.tsv\ntargets:\n  Smokes: targets.tsv\n"
	psl := "1: Friends(A, B) & Smokes(A) -> Smokes(B)\n"
	jsonConfig := func(constant string) string {
		return `{"rules": ["1: Friends(A, B) & Smokes(A) -> Smokes(B)"], "predicates": {"Friends/2": {"observations": {"infer": [["a", "` + constant + `"]]}}, "Smokes/1": {"targets": {"infer": [["b"]]}}}}` + "\n"
	}
	mln := "Friends(person, person)\nSmokes(person)\nCancer(person)\n1.5 Smokes(x) => Cancer(x)\n"
	tests := []struct {
		name  string
		files map[string]string
		args  []string
		msg   string
	}{
		{"JSON \\u0000", map[string]string{"c.json": jsonConfig(`b\u0000`)}, []string{"ground", "--config", "c.json"},
			`c.json:1:122: \u0000 (a NUL character) in string`},
		{"JSON lone surrogate", map[string]string{"c.json": jsonConfig(`\ud800`)}, []string{"ground", "--config", "c.json"},
			`c.json:1:121: \uD800 is half of a UTF-16 surrogate pair`},
		{"JSON Latin-1", map[string]string{"c.json": jsonConfig("caf\xe9")}, []string{"ground", "--config", "c.json"},
			"c.json:1:124: invalid UTF-8 (byte 0xE9)"},
		{"TSV Latin-1", map[string]string{"m.psl": psl, "d.data": data, "friends.tsv": "a\tcaf\xe9\n", "targets.tsv": "b\n"}, []string{"ground", "-m", "m.psl", "-d", "d.data"},
			"friends.tsv:1:6: invalid UTF-8 (byte 0xE9)"},
		{"TSV \\x00", map[string]string{"m.psl": psl, "d.data": data, "friends.tsv": "a\t\"b\\x00\"\n", "targets.tsv": "b\n"}, []string{"ground", "-m", "m.psl", "-d", "d.data"},
			`friends.tsv:1:3: argument 2 of Friends/2: "\"b\\x00\"" is not a valid quoted constant`},
		{".psl Latin-1", map[string]string{"m.psl": "1: Friends(A, 'caf\xe9') -> Smokes(A)\n", "d.data": data, "friends.tsv": "a\tb\n", "targets.tsv": "b\n"}, []string{"ground", "-m", "m.psl", "-d", "d.data"},
			"m.psl:1:19: invalid UTF-8 (byte 0xE9)"},
		{".db Latin-1", map[string]string{"p.mln": mln, "e.db": "Smokes(Ann)\nFriends(Ann, Jos\xe9)\n"}, []string{"mln", "infer", "-i", "p.mln", "-e", "e.db", "-q", "Cancer"},
			"e.db:2:17: invalid UTF-8 (byte 0xE9)"},
		{".db \\x00", map[string]string{"p.mln": mln, "e.db": "Smokes(\"A\\x00\")\n"}, []string{"mln", "infer", "-i", "p.mln", "-e", "e.db", "-q", "Cancer"},
			"e.db:1:8: bad string \"A\\x00\": its escapes make a NUL character"},
		{".mln Latin-1", map[string]string{"p.mln": mln + "1 Smokes(Jos\xe9)\n", "e.db": "Smokes(Ann)\n"}, []string{"mln", "infer", "-i", "p.mln", "-e", "e.db", "-q", "Cancer"},
			"p.mln:5:13: invalid UTF-8 (byte 0xE9)"},
	}
	for _, tc := range tests {
		for _, db := range []bool{false, true} {
			if db && tc.args[0] != "ground" {
				continue
			}
			t.Run(fmt.Sprintf("%s/db=%v", tc.name, db), func(t *testing.T) {
				dir := writeFiles(t, tc.files)
				args := make([]string, len(tc.args))
				for i, a := range tc.args {
					if _, ok := tc.files[a]; ok {
						a = dir + "/" + a
					}
					args[i] = a
				}
				if db {
					args = append(args, "--db", unreachable)
				}
				code, _, errs := runCLI(t, args...)
				if code != 2 || !strings.Contains(errs, tc.msg) {
					t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, errs, tc.msg)
				}
			})
		}
	}
}
