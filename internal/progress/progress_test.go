package progress

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

func TestSilentWhenNotATerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := ForTerminal(f, false)
	if r != nil {
		t.Fatal("a regular file is not a terminal: want a silent (nil) reporter")
	}
	// A nil reporter accepts every call.
	r.Stage("x", 3)
	r.Set(1)
	r.Status("it %d", 1)
	r.Done()
}

func TestWritesStatusAndClears(t *testing.T) {
	var buf bytes.Buffer
	r := To(&buf)
	r.Status("iteration %d objective %.3f", 50, 1.5)
	r.Done()
	out := buf.String()
	if !strings.Contains(out, "iteration 50 objective 1.500") {
		t.Fatalf("status not written: %q", out)
	}
	if !strings.HasSuffix(out, "\r\033[K") {
		t.Fatalf("status line not cleared at the end: %q", out)
	}
}

// TestLinesWhenNotATerminal: where stderr is not a terminal, New prints a
// plain line (phase, how far, seconds since the start) at most every few
// seconds, and nothing for a run shorter than that.
func TestLinesWhenNotATerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if New(f, true, "x") != nil {
		t.Error("quiet: want a silent (nil) reporter")
	}
	if r := New(f, false, "x"); r == nil || !r.lines || r.every != DefaultEvery {
		t.Errorf("a file: want a line reporter every %v, got %+v", DefaultEvery, r)
	}

	var buf bytes.Buffer
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	r := Lines(&buf, "hinge infer", 5*time.Second, func() time.Time { return now })
	at := func(sec float64) { now = t0.Add(time.Duration(sec * float64(time.Second))) }
	r.Stage("grounding", 10)
	at(1)
	r.Set(3) // too soon: nothing
	at(6)
	r.Set(5)
	at(7)
	r.Status("ADMM iteration %d", 50) // too soon after the last line
	at(12)
	r.Status("ADMM iteration %d", 100)
	r.Done()
	at(30)
	r.Status("ADMM iteration %d", 150)
	want := "hinge infer: grounding 5/10 (6 s)\nhinge infer: ADMM iteration 100 (12 s)\nhinge infer: ADMM iteration 150 (30 s)\n"
	if got := buf.String(); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}

	// A short run prints nothing.
	buf.Reset()
	now = t0
	r = Lines(&buf, "hinge solve", 5*time.Second, func() time.Time { return now })
	r.Status("ADMM iteration %d", 50)
	at(4.9)
	r.Status("ADMM iteration %d", 100)
	r.Done()
	if buf.Len() != 0 {
		t.Errorf("a run of 4.9 s printed %q", buf.String())
	}
}

// fakeTerminal is a buffer that says it is a terminal.
type fakeTerminal struct{ bytes.Buffer }

func (*fakeTerminal) Terminal() bool { return true }

func TestTerminalStandIn(t *testing.T) {
	var ft fakeTerminal
	r := New(&ft, false, "x")
	if r == nil || r.lines {
		t.Fatal("a writer that says it is a terminal gets the terminal display")
	}
	r.Status("it %d", 1)
	r.Done()
	if got := ft.String(); got != "\r\033[Kit 1\r\033[K" {
		t.Errorf("got %q", got)
	}
}

// TestLineMode: only a line reporter says that its lines carry the time.
func TestLineMode(t *testing.T) {
	var nilRep *Reporter
	var ft fakeTerminal
	for _, c := range []struct {
		r    *Reporter
		want bool
	}{
		{nilRep, false},
		{New(&ft, false, "x"), false},
		{Lines(&bytes.Buffer{}, "x", time.Second, time.Now), true},
	} {
		if got := c.r.LineMode(); got != c.want {
			t.Errorf("%+v: LineMode %v, want %v", c.r, got, c.want)
		}
	}
}
