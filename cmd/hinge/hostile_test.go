package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHostileInput runs every command on inputs meant to exhaust memory or
// confuse a loader, under a small --memory-limit, and checks that each run
// ends the way the README promises: a non-zero exit, one clear line naming
// the file or rule, no runtime dump, nothing written.
func TestHostileInput(t *testing.T) {
	dir := t.TempDir()
	w := func(name, text string) string { return writeFile(t, dir, name, text) }
	hasZero := true
	if _, err := os.Stat("/dev/zero"); err != nil {
		hasZero = false
	}

	// A small PSL program that loads, for the cases that spoil one input.
	okPSL := w("ok.psl", "1: Friends(A, B) & Smokes(A) -> Smokes(B)\n")
	w("friends.tsv", "a\tb\n")
	w("smokes.tsv", "a\n")
	w("targets.tsv", "b\n")
	okData := w("ok.data", "predicates:\n  Friends/2: closed\n  Smokes/1: open\nobservations:\n  Friends: friends.tsv\n  Smokes: smokes.tsv\ntargets:\n  Smokes: targets.tsv\n")
	zeroTSV := w("zero-tsv.data", "predicates:\n  Friends/2: closed\n  Smokes/1: open\nobservations:\n  Friends: /dev/zero\n  Smokes: smokes.tsv\ntargets:\n  Smokes: targets.tsv\n")
	okMLN := w("ok.mln", "Smokes(person)\nCancer(person)\n1.5 Smokes(x) => Cancer(x)\n")

	// 10^4 x 10^4: two unary predicates with no shared variable.
	var a, b strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
	}
	w("a.tsv", a.String())
	w("b.tsv", b.String())
	w("c.tsv", "a0\tb0\n")
	crossData := w("cross.data", "predicates:\n  A/1: open\n  B/1: closed\n  C/2: open\nobservations:\n  B: b.tsv\ntargets:\n  A: a.tsv\n  C: c.tsv\n")
	crossPSL := w("cross.psl", "1: A(X) & B(Y) -> C(X, Y)\n")
	atoms := make([]string, 50)
	for i := range atoms {
		atoms[i] = fmt.Sprintf("A(X%d)", i)
	}
	wide := w("wide.psl", "1: "+strings.Join(atoms, " & ")+" -> C(X0, X1)\n")

	loop := filepath.Join(dir, "loop.psl")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	longPath := filepath.Join(dir, strings.Repeat("p", 10<<20))

	out := filepath.Join(dir, "out")
	cases := []struct {
		name string
		args []string
		want string // the one line of stderr contains this
		zero bool   // needs /dev/zero
	}{
		{"huge exchange header", []string{"solve", w("big.txt", "# variables: 268435455\n"), "--output", out}, "big.txt: 268435455 variables", false},
		{"huge exchange header (lift)", []string{"lift", filepath.Join(dir, "big.txt"), "--export", out}, "big.txt: 268435455 variables", false},
		{"huge wcnf header", []string{"maxsat", w("big.wcnf", "p wcnf 268435455 1 10\n10 1 0\n"), "--report", out}, "big.wcnf: 268435455 variables", false},
		{"/dev/zero as .psl", []string{"ground", "-m", "/dev/zero", "-d", okData, "--export", out}, "/dev/zero is not a text file", true},
		{"/dev/zero as .data", []string{"ground", "-m", okPSL, "-d", "/dev/zero", "--export", out}, "/dev/zero is not a text file", true},
		{"/dev/zero as TSV", []string{"ground", "-m", okPSL, "-d", zeroTSV, "--export", out}, "/dev/zero is not a text file", true},
		{"/dev/zero as JSON config", []string{"infer", "--config", "/dev/zero", "--output", out}, "/dev/zero is not a text file", true},
		{"/dev/zero as exchange", []string{"solve", "/dev/zero", "--output", out}, "/dev/zero is not a text file", true},
		{"/dev/zero as wcnf", []string{"maxsat", "/dev/zero", "--report", out}, "/dev/zero is not a text file", true},
		{"/dev/zero as .mln", []string{"mln", "infer", "-i", "/dev/zero", "-q", "Cancer", "-r", out}, "/dev/zero is not a text file", true},
		{"/dev/zero as .db", []string{"mln", "infer", "-i", okMLN, "-e", "/dev/zero", "-q", "Cancer", "-r", out}, "/dev/zero is not a text file", true},
		{"cross-product rule", []string{"ground", "-m", crossPSL, "-d", crossData, "--export", out}, `cross.psl:1:1: rule "1: A(X) & B(Y) -> C(X, Y)": about 1.0e+08 groundings (A and B share no variable: a cross product of 10,000 x 10,000) exceed the memory limit of 64.0 MiB`, false},
		{"cross-product rule (infer)", []string{"infer", "-m", crossPSL, "-d", crossData, "--output", out}, "a cross product of 10,000 x 10,000", false},
		{"50-variable rule", []string{"infer", "-m", wide, "-d", crossData, "--output", out}, "wide.psl:1:1: rule", false},
		{"symlink loop", []string{"ground", "-m", loop, "-d", okData, "--export", out}, "loop.psl is a symlink loop", false},
		{"10 MB path", []string{"solve", longPath, "--output", out}, "file name too long", false},
		{"10 MB data path", []string{"ground", "-m", okPSL, "-d", longPath + ".data", "--export", out}, "file name too long", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.zero && !hasZero {
				t.Skip("no /dev/zero here")
			}
			args := append(append([]string{}, c.args...), "--memory-limit", "64MiB")
			code, stdout, stderr := runCLI(t, args...)
			if code == 0 {
				t.Fatalf("exit 0; stdout %.300q", stdout)
			}
			if len(stderr) > 1000 {
				t.Errorf("%d-byte message: %.300q", len(stderr), stderr)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
				t.Errorf("stderr %.600q: want one line containing %q", stderr, c.want)
			}
			for _, bad := range []string{"goroutine", "panic"} {
				if strings.Contains(stderr, bad) {
					t.Errorf("stderr mentions %q: %.300q", bad, stderr)
				}
			}
			if matches, _ := filepath.Glob(out + "*"); len(matches) > 0 {
				t.Errorf("wrote %v", matches)
			}
		})
	}
}

// TestEndlessInput: a data file that is an endless stream of valid,
// distinct lines (a FIFO fed without end) stops with exit status 1 and one
// line naming the file, its line and the memory limit, instead of growing
// until the system kills the process.
func TestEndlessInput(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "endless.tsv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		w := bufio.NewWriter(f)
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(w, "a%d\n", i); err != nil {
				return // the reader stopped
			}
		}
	}()
	w := func(name, text string) string { return writeFile(t, dir, name, text) }
	w("targets.tsv", "a1\n")
	data := w("e.data", "predicates:\n  A/1: closed\n  B/1: open\nobservations:\n  A: endless.tsv\ntargets:\n  B: targets.tsv\n")
	psl := w("e.psl", "1: A(X) -> B(X)\n")
	code, _, stderr := runCLI(t, "ground", "-m", psl, "-d", data, "--memory-limit", "64MiB")
	if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "endless.tsv:") || !strings.Contains(stderr, "fills the memory limit of 64.0 MiB") {
		t.Errorf("exit %d, stderr %.400q; want exit 1 and one line naming endless.tsv and the limit", code, stderr)
	}
}
