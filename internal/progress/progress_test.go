package progress

import (
	"bytes"
	"os"
	"strings"
	"testing"
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
