package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for hinge in a child process
// (HINGE_TEST_MAIN=1), so that signals can be sent to a real run.
func TestMain(m *testing.M) {
	if os.Getenv("HINGE_TEST_MAIN") == "1" {
		os.Args = append([]string{"hinge"}, os.Args[1:]...)
		main()
	}
	os.Exit(m.Run())
}

// runCancelled runs a command line in-process with ctx, the way main runs
// it with the signal context.
func runCancelled(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runContext(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}

// checkCancelled checks a cancelled run's answer: exit status 1, the
// message saying so (not Go's "context canceled"), and none of paths
// written.
func checkCancelled(t *testing.T, name string, code int, stderr string, paths ...string) {
	t.Helper()
	if code != 1 || !strings.Contains(stderr, "the run was cancelled") || strings.Contains(stderr, "context canceled") {
		t.Errorf("%s: exit %d, stderr %q: want exit 1 and 'the run was cancelled'", name, code, stderr)
	}
	for _, p := range paths {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %s was written by a cancelled run", name, p)
		}
	}
}

// TestInferCancelledWhileSolving: hinge infer cancelled once grounding is
// done (Ctrl-C during the solve) exits 1, says the run was cancelled and
// writes neither --output nor --report, whatever the solver: ADMM, lifted,
// discrete, or streaming (whose cancelled solve used to write its last
// iterate and exit 0).
func TestInferCancelledWhileSolving(t *testing.T) {
	psl, data := writeTransitivity(t, 60, 6)
	for _, extra := range [][]string{nil, {"--streaming"}, {"--lifted"}} {
		name := fmt.Sprint(extra)
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			out, report := filepath.Join(dir, "out"), filepath.Join(dir, "r.json")
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			testHookBeforeSolve = func() { cancel(errors.New("interrupt signal received")) }
			defer func() { testHookBeforeSolve = nil }()
			code, stdout, errs := runCancelled(t, ctx, append([]string{"infer", "--model", psl, "--data", data, "--output", out, "--report", report}, extra...)...)
			checkCancelled(t, name, code, errs, out, report)
			if !strings.Contains(errs, "the run was cancelled (interrupt signal received); no output was written") {
				t.Errorf("stderr %q does not say what cancelled the run", errs)
			}
			if !strings.Contains(stdout, "potentials") {
				t.Errorf("the run was cancelled before grounding finished:\n%s", stdout)
			}
		})
	}
	// --discrete takes clauses: the smokers example.
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	testHookBeforeSolve = cancel
	defer func() { testHookBeforeSolve = nil }()
	code, _, errs := runCancelled(t, ctx, "infer", "--model", "../../examples/smokers/smokers.psl", "--data", "../../examples/smokers/smokers.data", "--discrete", "--output", out)
	checkCancelled(t, "--discrete", code, errs, out)
}

// TestCancelledBeforeWork: a run whose context is cancelled from the start
// stops in its first long step (grounding, inference) with exit status 1
// and the cancellation message, and writes nothing.
func TestCancelledBeforeWork(t *testing.T) {
	psl, data := writeTransitivity(t, 60, 6)
	dir := t.TempDir()
	rrfModel := writeFile(t, dir, "m.rrf", "P(node)\nroot = 1 * sum(x) F(x)\nF(x) = 1 * P(x)\n")
	rrfEvidence := writeFile(t, dir, "e.db", "P(A)\n")
	for _, tc := range []struct {
		name    string
		args    []string
		outputs []string
	}{
		{"ground", []string{"ground", "-m", psl, "-d", data, "--export", filepath.Join(dir, "g.hlmrf"), "--report", filepath.Join(dir, "g.json")}, []string{"g.hlmrf", "g.hlmrf.atoms", "g.json"}},
		{"infer", []string{"infer", "-m", psl, "-d", data, "--output", filepath.Join(dir, "o1"), "--report", filepath.Join(dir, "i.json")}, []string{"o1", "i.json"}},
		{"infer --streaming", []string{"infer", "-m", psl, "-d", data, "--streaming", "--cache", filepath.Join(dir, "c"), "--output", filepath.Join(dir, "o2")}, []string{"o2", "c/ground.cache"}},
		{"learn", []string{"learn", "-m", psl, "-d", data, "--output", filepath.Join(dir, "l.psl")}, []string{"l.psl"}},
		{"rrf infer", []string{"rrf", "infer", "-i", rrfModel, "-e", rrfEvidence, "-q", "P", "-r", filepath.Join(dir, "r.txt")}, []string{"r.txt"}},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		code, stdout, errs := runCancelled(t, ctx, tc.args...)
		var paths []string
		for _, o := range tc.outputs {
			paths = append(paths, filepath.Join(dir, o))
		}
		checkCancelled(t, tc.name, code, errs, paths...)
		if strings.Contains(stdout, "potentials") {
			t.Errorf("%s: grounding finished in a cancelled run:\n%s", tc.name, stdout)
		}
	}
}

// startHinge starts exe with args, this test binary standing for hinge
// (TestMain runs main) when it runs, its standard output a pipe and its
// standard error kept.
func startHinge(t *testing.T, exe string, args ...string) (*exec.Cmd, io.ReadCloser, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "HINGE_TEST_MAIN=1")
	errb := &bytes.Buffer{}
	cmd.Stderr = errb
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdout, errb
}

// TestSignalCancelsRun sends SIGINT and then SIGTERM to real hinge
// processes (this test binary as hinge) in the middle of a solve that
// would never end: each exits 1 with the message, writing nothing.
func TestSignalCancelsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	psl, data := writeTransitivity(t, 300, 8)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		dir := t.TempDir()
		out, report := filepath.Join(dir, "out"), filepath.Join(dir, "r.json")
		// No tolerance is met for a long time (minutes): the solve runs
		// until cancelled.
		cmd, stdout, errb := startHinge(t, exe, "infer", "--model", psl, "--data", data, "--output", out, "--report", report,
			"--eps-abs", "0", "--eps-rel", "0", "--gap-tol", "0", "--max-iter", "2000000000", "--threads", "1")
		// Grounding is done when its summary is printed; the solve runs.
		sc := bufio.NewScanner(stdout)
		for sc.Scan() && !strings.Contains(sc.Text(), "total:") {
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			for sc.Scan() {
			}
			done <- cmd.Wait()
		}()
		select {
		case err = <-done:
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			t.Fatalf("%v: the run did not stop", sig)
		}
		var ee *exec.ExitError
		code := 0
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		checkCancelled(t, sig.String(), code, errb.String(), out, report)
		want := map[syscall.Signal]string{syscall.SIGINT: "(interrupt signal received)", syscall.SIGTERM: "(terminated signal received)",
			syscall.SIGHUP: "(hangup signal received)"}[sig]
		if !strings.Contains(errb.String(), want) {
			t.Errorf("%v: stderr %q lacks %q", sig, errb.String(), want)
		}
	}
}

// TestNohupKeepsRunning: a run started with SIGHUP ignored (nohup, trap ”
// HUP) outlives a hangup, as the user asked (catching SIGHUP undid the
// ignoring and cancelled it); SIGINT still stops it.
func TestNohupKeepsRunning(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to start hinge with SIGHUP ignored")
	}
	psl, data := writeTransitivity(t, 300, 8)
	cmd, stdout, errb := startHinge(t, sh, "-c", `trap "" HUP; exec "$0" "$@"`, exe, "infer", "--model", psl, "--data", data,
		"--eps-abs", "0", "--eps-rel", "0", "--gap-tol", "0", "--max-iter", "2000000000", "--threads", "1")
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && !strings.Contains(sc.Text(), "total:") {
	}
	done := make(chan error, 1)
	go func() {
		for sc.Scan() {
		}
		done <- cmd.Wait()
	}()
	cmd.Process.Signal(syscall.SIGHUP)
	select {
	case <-done:
		t.Fatalf("a hangup stopped a run that ignores it: %s", errb.String())
	case <-time.After(time.Second):
	}
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
		if !strings.Contains(errb.String(), "(interrupt signal received)") {
			t.Errorf("stderr %q", errb.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("SIGINT did not stop it")
	}
}

// TestWhileRunning: work that does not look at a context (a parser) is
// left behind when the context is cancelled, and the caller gets the
// cancelled run's error at once; otherwise the work's own answer.
func TestWhileRunning(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	started := make(chan struct{})
	go func() { <-started; cancel() }()
	v, err := whileRunning(ctx, func() (int, error) {
		close(started)
		<-release // a parse that would go on for minutes
		return 1, nil
	})
	close(release)
	if v != 0 || !isCancel(err) || exitCode(err) != 1 {
		t.Fatalf("got %d, %v (exit %d): want a cancelled run's error", v, err, exitCode(err))
	}
	boom := errors.New("boom")
	if v, err := whileRunning(context.Background(), func() (int, error) { return 2, boom }); v != 2 || err != boom {
		t.Fatalf("got %d, %v", v, err)
	}
	live, stop := context.WithCancel(context.Background())
	defer stop()
	if v, err := whileRunning(live, func() (int, error) { return 3, nil }); v != 3 || err != nil {
		t.Fatalf("got %d, %v", v, err)
	}
}
