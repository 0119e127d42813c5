package hinge

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/internal/shareddata"
)

// A README's shell block whose fence reads "```sh quick" is run by
// TestReadmeCommands, in the order written, from the repository root; one
// that also says "needs-data" reads the shared data sets and is skipped,
// with the reason, when they are absent. So a command a user copies from a
// README cannot silently stop working. Other shell blocks are not run (they
// take long, or need PostgreSQL, Alchemy or an installed hinge), but they
// too run as written, except for placeholders such as M.psl or
// /path/to/..., which a comment of the block names (TestReadmePlaceholders).

// shellBlock is one fenced shell block of a README.
type shellBlock struct {
	file      string
	line      int // of the opening fence
	script    string
	quick     bool
	needsData bool
}

// shellBlocks returns the shell blocks (```sh, ```bash) of the markdown
// file at path.
func shellBlocks(t *testing.T, path string) []shellBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []shellBlock
	var cur *shellBlock
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			words := strings.Fields(strings.TrimPrefix(trimmed, "```"))
			if len(words) >= 1 && (words[0] == "sh" || words[0] == "bash") {
				cur = &shellBlock{file: path, line: n}
				for _, w := range words[1:] {
					cur.quick = cur.quick || w == "quick"
					cur.needsData = cur.needsData || w == "needs-data"
				}
			} else {
				// Another block: skip to its end.
				cur = &shellBlock{line: -1}
			}
		case cur != nil && trimmed == "```":
			if cur.line > 0 {
				out = append(out, *cur)
			}
			cur = nil
		case cur != nil && cur.line > 0:
			cur.script += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s:%d: code block not closed", path, cur.line)
	}
	return out
}

// quickBlocks returns the quick shell blocks of the markdown file at path.
func quickBlocks(t *testing.T, path string) []shellBlock {
	t.Helper()
	var out []shellBlock
	for _, b := range shellBlocks(t, path) {
		if b.quick {
			out = append(out, b)
		}
	}
	return out
}

// readmes lists the user documentation of the repository, the top README
// first: every README.md, and the pages of docs/.
func readmes(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if !d.IsDir() && (d.Name() == "README.md" && path != "README.md" || filepath.Dir(path) == "docs" && strings.HasSuffix(path, ".md")) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestReadmeCommands runs every quick shell block of every README with bash,
// from the repository root, each README's blocks in order. Paths under /tmp/
// are moved into the test's temporary directory so that runs do not share
// files. Then the figures of readmeFigures are read from the blocks' output
// and looked for in the README's text.
func TestReadmeCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README's commands (go run, real data); skipped in -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is needed to run the README's commands")
	}
	dataErr := error(nil)
	if _, err := shareddata.Dir(); err != nil {
		dataErr = err
	}
	total := 0
	for _, readme := range readmes(t) {
		blocks := quickBlocks(t, readme)
		if len(blocks) == 0 {
			continue
		}
		total += len(blocks)
		t.Run(readme, func(t *testing.T) {
			tmp := t.TempDir()
			outputs := map[int]string{} // by the block's index; absent when skipped
			for i, b := range blocks {
				name := fmt.Sprintf("%s:%d", b.file, b.line)
				if b.needsData && dataErr != nil {
					t.Logf("%s: skipped: needs the shared data sets: %v", name, dataErr)
					continue
				}
				script := strings.ReplaceAll(b.script, "/tmp/", tmp+"/")
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
				cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				start := time.Now()
				err := cmd.Run()
				cancel()
				if err != nil {
					t.Fatalf("%s: %v\n--- script\n%s--- output\n%s", name, err, b.script, out.String())
				}
				t.Logf("%s: ok in %.1f s", name, time.Since(start).Seconds())
				outputs[i] = out.String()
			}
			text, err := os.ReadFile(readme)
			if err != nil {
				t.Fatal(err)
			}
			for _, fig := range readmeFigures {
				if fig.readme == readme {
					checkFigure(t, fig, string(text), blocks, outputs)
				}
			}
		})
	}
	if total == 0 {
		t.Fatal("no README block is marked quick (```sh quick)")
	}
}

// readmeFigure is a figure written in a README that one of its quick blocks
// prints: the block whose script contains block is run, the first group of
// pattern is read from its output (the last match), written with format,
// and the README, its blanks collapsed to single spaces, must contain text
// with it in place of %s.
type readmeFigure struct {
	readme, block, pattern, format, text string
}

// readmeFigures are the README's figures that its quick blocks print, so
// that a figure changed by the code cannot stay wrong in the text.
var readmeFigures = []readmeFigure{
	{"docs/explain.md", "--explain 'Cancer(Bob)' --explain-json", `Cancer\('Bob'\) = ([0-9.]+):`, "%.2f", "Why is `Cancer(Bob)` %s in the smokers example?"},
	{"docs/mln.md", "-q Cancer,Smokes \\\n    --marginal --samples 5000", `Cancer\(Bob\) ([0-9.]+)`, "%.4f", "result format, `Cancer(Bob) %s`"},
	{"docs/rrf.md", "--marginal --method exact", `Cancer\(Anna\) ([0-9.]+)`, "%.4f", "against %s, which is exact"},
	{"docs/rrf.md", "smokers.db -q Cancer,Smokes --samples 5000", `Cancer\(Anna\) ([0-9.]+)`, "%.4f", "about twice the largest standard error the run prints; `Cancer(Anna) %s` against"},
	{"docs/rules.md", "--target Grandparent", `AUROC=([0-9.]+)`, "%g", "perfectly (AUROC %s)"},
	{"docs/rules.md", "--target interacts", `kept (\d+ of \d+) candidate clauses`, "", "learns %s candidate clauses"},
	{"docs/rules.md", "--target interacts", ` AUROC=([0-9.]+)`, "%.3f", "scores AUROC %s and AUPRC"},
	{"docs/rules.md", "--target interacts", `POSITIVE_AUPRC=([0-9.]+)`, "%.3f", "and AUPRC %s on the evaluation split"},
	{"docs/psl.md", "--output /tmp/cora/out", `CategoricalEvaluator: ACCURACY=([0-9.]+)`, "%.3f", "accuracy on the target papers: %s on Cora"},
	{"docs/psl.md", "--output /tmp/cora/out", `CategoricalEvaluator: ACCURACY=([0-9.]+)`, "%.3f", "against %s with the example's untrained ones"},
	{"docs/psl.md", "--model /tmp/cora/cora-learned.psl", `CategoricalEvaluator: ACCURACY=([0-9.]+)`, "%.3f", "(%s with the MPLE weights"},
}

// checkFigure checks one readmeFigure against the README's text and the
// output of its block (skipped when the block was).
func checkFigure(t *testing.T, fig readmeFigure, text string, blocks []shellBlock, outputs map[int]string) {
	t.Helper()
	which := -1
	for i, b := range blocks {
		if strings.Contains(b.script, fig.block) {
			if which >= 0 {
				t.Errorf("figure %q: two quick blocks of %s contain %q", fig.text, fig.readme, fig.block)
				return
			}
			which = i
		}
	}
	if which < 0 {
		t.Errorf("figure %q: no quick block of %s contains %q", fig.text, fig.readme, fig.block)
		return
	}
	out, ran := outputs[which]
	if !ran {
		t.Logf("figure %q not checked: its block was skipped", fig.text)
		return
	}
	ms := regexp.MustCompile(fig.pattern).FindAllStringSubmatch(out, -1)
	if len(ms) == 0 {
		t.Errorf("%s:%d: output has no %q\n%s", fig.readme, blocks[which].line, fig.pattern, out)
		return
	}
	got := ms[len(ms)-1][1]
	if fig.format != "" {
		v, err := strconv.ParseFloat(got, 64)
		if err != nil {
			t.Errorf("%s:%d: %q: %v", fig.readme, blocks[which].line, got, err)
			return
		}
		got = fmt.Sprintf(fig.format, v)
	}
	want := fmt.Sprintf(fig.text, got)
	if !strings.Contains(strings.Join(strings.Fields(text), " "), want) {
		t.Errorf("%s: the block at line %d prints %s, so the README should say %q", fig.readme, blocks[which].line, got, want)
	}
}

// placeholderRE matches what stands for the reader's own file, value or
// server in a command: a word in capitals, with or without extensions
// (M.psl, D.data, PRED, T), a /path/to/ path, or an address at dbhost.
var placeholderRE = regexp.MustCompile(`(?:^|[\s=])([A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9]+)*)(?:[\s;|)]|$)|(/path/to/[^\s;]*)|([\w.-]*@dbhost\b)`)

var (
	quotedRE  = regexp.MustCompile(`'[^']*'|"[^"]*"`)
	commentRE = regexp.MustCompile(`(?:^|\s)#.*$`)
)

// placeholders returns the placeholders (placeholderRE) of a shell script's
// commands, outside quotes and comments.
func placeholders(script string) []string {
	var out []string
	for _, line := range strings.Split(script, "\n") {
		line = commentRE.ReplaceAllString(quotedRE.ReplaceAllString(line, "''"), "")
		for _, m := range placeholderRE.FindAllStringSubmatch(line, -1) {
			for _, g := range m[1:] {
				if g != "" {
					out = append(out, g)
				}
			}
		}
	}
	return out
}

// serverRE matches a command that reaches a PostgreSQL server: a
// postgres:// URL or the variable that holds one.
var serverRE = regexp.MustCompile(`postgres(?:ql)?://|\$\{?HINGE_DB\b`)

// unsaidNeeds says what a shell script needs but does not say in a comment:
// a PostgreSQL server (unless the script starts one, with pg_ctl), or the
// shared data sets by the path ../shared/data alone, which ignores
// HINGE_DATA (written ${HINGE_DATA:-../shared/data}, it does not).
func unsaidNeeds(script string) string {
	var comments, commands []string
	for _, line := range strings.Split(script, "\n") {
		c := commentRE.FindString(line)
		comments = append(comments, c)
		commands = append(commands, strings.TrimSuffix(line, c))
	}
	code := strings.Join(commands, "\n")
	switch {
	case serverRE.MatchString(code) && !strings.Contains(code, "pg_ctl") && !strings.Contains(strings.Join(comments, "\n"), "PostgreSQL"):
		return "the block needs a PostgreSQL server: say so in a comment of the block (# needs a PostgreSQL server ...)"
	case strings.Contains(strings.ReplaceAll(code, "${HINGE_DATA:-../shared/data}", ""), "../shared/data"):
		return "the block reads ../shared/data, ignoring HINGE_DATA: write ${HINGE_DATA:-../shared/data}"
	}
	return ""
}

// placeholderNotes returns the comments of a shell script that say
// "placeholder", joined.
func placeholderNotes(script string) string {
	var notes []string
	for _, line := range strings.Split(script, "\n") {
		if c := commentRE.FindString(line); strings.Contains(c, "placeholder") {
			notes = append(notes, c)
		}
	}
	return strings.Join(notes, "\n")
}

// TestReadmePlaceholders: the top README says that its commands run as
// written, except for placeholders that a comment names. So a placeholder
// in a shell block of any README must be named as one in a comment of its
// block, and a quick block (which TestReadmeCommands runs) holds none. What a
// block needs besides the repository must be said too (unsaidNeeds): a
// PostgreSQL server, and the shared data sets where HINGE_DATA says.
func TestReadmePlaceholders(t *testing.T) {
	for _, readme := range readmes(t) {
		for _, b := range shellBlocks(t, readme) {
			if why := unsaidNeeds(b.script); why != "" {
				t.Errorf("%s:%d: %s", b.file, b.line, why)
			}
			ph := placeholders(b.script)
			if len(ph) == 0 {
				continue
			}
			if b.quick {
				t.Errorf("%s:%d: a quick block, run as written, holds placeholders %q", b.file, b.line, ph)
				continue
			}
			notes := placeholderNotes(b.script)
			for _, p := range ph {
				if !strings.Contains(notes, p) {
					t.Errorf("%s:%d: %q looks like a placeholder; name it in a comment of the block (# placeholder: %s, ...) or write a command that runs as written", b.file, b.line, p, p)
				}
			}
		}
	}
}

// TestReadmeStartHere: the top README starts a new user with exactly two
// commands, one that runs a real job with go run and go test ./...; what
// follows (installing, timings) is explained, not required.
func TestReadmeStartHere(t *testing.T) {
	blocks := shellBlocks(t, "README.md")
	if len(blocks) < 2 {
		t.Fatalf("README.md has %d shell blocks", len(blocks))
	}
	first, second := blocks[0], blocks[1]
	if !first.quick || first.needsData || strings.Count(first.script, "\n") != 1 || !strings.HasPrefix(first.script, "go run ./cmd/hinge ") {
		t.Errorf("README.md:%d: the first set-up command should be one quick go run ./cmd/hinge line, not %q", first.line, first.script)
	}
	if second.script != "go test ./...\n" {
		t.Errorf("README.md:%d: the second set-up command should be go test ./..., not %q", second.line, second.script)
	}
}

func TestPlaceholders(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   []string
	}{
		{"HINGE_DB=postgres://user@dbhost/hinge hinge infer --model M.psl --data D.data --output out\n", []string{"user@dbhost", "M.psl", "D.data"}},
		{"export HINGE_DATA=/path/to/shared/data\n", []string{"/path/to/shared/data"}},
		{"hinge learn --constraint-tol T --quiet\nhinge kgc --rules R\n", []string{"T", "R"}},
		{"go run ./cmd/hinge infer -m examples/smokers/smokers.psl -q Cancer,Smokes --explain 'Cancer(Bob)'\n", nil},
		{"D=${HINGE_DATA:-../shared/data}\ncat $D/ai/predicates $D/ai/rules > /tmp/uw-prog.mln\n", nil},
		{"/usr/bin/time -f \"%e s %M KB\" hinge ground $a --db \"$HINGE_DB\"\ncat /tmp/out/SMOKES.txt\n", nil},
		{"runuser -u postgres -- initdb -D $d/data -A trust -U postgres\n", nil},
		{"A=/path/to/alchemy/bin   # placeholder: /path/to/alchemy/bin, Alchemy's\n", []string{"/path/to/alchemy/bin"}},
		{"go -C bench run ./mln   # all of it, about 90 MINUTES\n", nil},
	} {
		got := placeholders(tc.script)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%q: placeholders %q, want %q", tc.script, got, tc.want)
		}
	}
	for _, tc := range []struct {
		script string
		says   string
	}{
		{"hinge ground $a --db \"$HINGE_DB\"\n", "PostgreSQL server"},
		{"hinge ground --db 'postgres://postgres@127.0.0.1:5432/postgres'\n", "PostgreSQL server"},
		{"# needs a PostgreSQL server, its URL in HINGE_DB\nhinge ground --db \"$HINGE_DB\"\n", ""},
		{"runuser -u postgres -- pg_ctl -D $d/data start\nexport HINGE_DB=\"postgres://postgres@/postgres?host=$d\"\n", ""},
		{"go run ./examples/citations -data ../shared/data/cora\n", "HINGE_DATA"},
		{"go run ./examples/citations -data ${HINGE_DATA:-../shared/data}/cora\n", ""},
		{"go -C bench run ./mlnkb   # needs ../shared/data/kinship-mln\n", ""},
		{"hinge infer -m examples/smokers/smokers.psl -d examples/smokers/smokers.data\n", ""},
	} {
		if got := unsaidNeeds(tc.script); (tc.says == "") != (got == "") || !strings.Contains(got, tc.says) {
			t.Errorf("%q: unsaidNeeds %q, want one saying %q", tc.script, got, tc.says)
		}
	}
	if n := placeholderNotes("# placeholder: M.psl, your model\nhinge infer -m M.psl\n"); !strings.Contains(n, "M.psl") {
		t.Errorf("notes %q", n)
	}
}

func TestQuickBlocks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "R.md")
	text := "# x\n```sh quick\necho a\necho b\n```\n```sh\nnot run\n```\n```\nplain\n```\n  ```bash quick needs-data\nls\n  ```\n```go\nx := 1\n```\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got := quickBlocks(t, path)
	if len(got) != 2 || got[0].script != "echo a\necho b\n" || got[0].needsData || got[0].line != 2 ||
		got[1].script != "ls\n" || !got[1].needsData || got[1].line != 12 {
		t.Fatalf("%+v", got)
	}
	all := shellBlocks(t, path)
	if len(all) != 3 || all[1].quick || all[1].script != "not run\n" || all[1].line != 6 || !all[0].quick || !all[2].quick {
		t.Fatalf("%+v", all)
	}
}

// TestReadmeFrontDoor: the top README stays a front door (at most 400
// lines), every page of docs/ is linked from it, and every docs/ page it
// links to exists.
func TestReadmeFrontDoor(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if n := strings.Count(text, "\n"); n > 400 {
		t.Errorf("README.md has %d lines; the details belong in docs/", n)
	}
	pages, err := filepath.Glob("docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs/*.md pages (%v)", err)
	}
	for _, p := range pages {
		if !strings.Contains(text, "("+filepath.ToSlash(p)+")") {
			t.Errorf("README.md does not link %s", p)
		}
	}
	for _, m := range regexp.MustCompile(`\]\((docs/[^)#]+)`).FindAllStringSubmatch(text, -1) {
		if _, err := os.Stat(m[1]); err != nil {
			t.Errorf("README.md links %s: %v", m[1], err)
		}
	}
}
