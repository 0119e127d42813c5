package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirFromEnvironment(t *testing.T) {
	d := t.TempDir()
	t.Setenv("HINGE_DATA", d)
	got, err := Dir()
	if err != nil || got != d {
		t.Fatalf("Dir() = %q, %v; want %q", got, err, d)
	}
	t.Setenv("HINGE_DATA", filepath.Join(d, "missing"))
	if _, err := Dir(); err == nil {
		t.Fatal("a missing HINGE_DATA directory must be an error")
	}
}

func TestRequireSkipsWhenAbsent(t *testing.T) {
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "present.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HINGE_DATA", d)
	if got := Require(t, "present.txt"); got != filepath.Join(d, "present.txt") {
		t.Fatalf("Require = %q", got)
	}
	skipped := false
	t.Run("absent", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Require(t, "absent.txt")
		t.Error("Require did not skip for an absent file")
	})
	if !skipped {
		t.Fatal("want the subtest skipped")
	}
}
