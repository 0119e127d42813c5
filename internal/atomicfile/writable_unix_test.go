//go:build unix

package atomicfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWritableRefusesWhatNoRenameReplaces: an output that takes only
// appends (chattr +a), or another user's file in a sticky directory, can
// be written by the shell's > but not replaced by a rename: the run
// failed only once its work was done (an outside tester's late failures).
// Writable now says so before the run.
func TestWritableRefusesWhatNoRenameReplaces(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		fileUID, dirUID, euid int
		sticky, wantRefused   bool
	}{
		{"another user's file, sticky", 1001, 0, 1000, true, true},
		{"own file, sticky", 1000, 0, 1000, true, false},
		{"own directory, sticky", 1001, 1000, 1000, true, false},
		{"root, sticky", 1001, 0, 0, true, false},
		{"another user's file, not sticky", 1001, 0, 1000, false, false},
	} {
		if err := stickyReplace(tc.fileUID, tc.dirUID, tc.euid, tc.sticky); (err != nil) != tc.wantRefused {
			t.Errorf("%s: %v, want refused %v", tc.name, err, tc.wantRefused)
		}
	}

	chattr, err := exec.LookPath("chattr")
	if err != nil {
		t.Skip("no chattr to make an append-only file: the append-only case is not checked")
	}
	path := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Writable(path); err != nil {
		t.Fatalf("a plain file: %v", err)
	}
	if out, err := exec.Command(chattr, "+a", path).CombinedOutput(); err != nil {
		t.Skipf("chattr +a %s: %v (%s): the file system or user cannot set it; the append-only case is not checked", path, err, out)
	}
	t.Cleanup(func() { exec.Command(chattr, "-a", path).Run() })
	if err := Writable(path); err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Errorf("append-only file: %v, want a refusal that says append-only", err)
	}
	// Write-only (mode 0200): its flags are read through a descriptor
	// opened for appending (for a user other than root, who opens it
	// anyway, reading it was refused and the check skipped).
	wo := filepath.Join(filepath.Dir(path), "write-only.json")
	if err := os.WriteFile(wo, []byte("{}\n"), 0o200); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(chattr, "+a", wo).CombinedOutput(); err != nil {
		t.Fatalf("chattr +a %s: %v (%s)", wo, err, out)
	}
	t.Cleanup(func() { exec.Command(chattr, "-a", wo).Run() })
	if err := Writable(wo); err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Errorf("write-only append-only file: %v, want a refusal that says append-only", err)
	}
}
