package memlimit

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseSize(t *testing.T) {
	good := map[string]int64{
		"1048576": 1 << 20, "512MiB": 512 << 20, "512mib": 512 << 20, "2GB": 2e9, "2G": 2e9,
		"1.5G": 1.5e9, "64k": 64e3, "64KiB": 64 << 10, "1Ti": 1 << 40, "100B": 100, " 3 MB ": 3e6,
	}
	for in, want := range good {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "12XB", "-5", "0", "1e3", "1..5G", "0.1", "99999999999T", "5 GiBs"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestLimitFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got := readLimitFile(write("max", "max\n")); got != 0 {
		t.Errorf("memory.max 'max' read as %d, want 0 (no limit)", got)
	}
	if got := readLimitFile(write("v2", "536870912\n")); got != 512<<20 {
		t.Errorf("memory.max read as %d", got)
	}
	if got := memTotal(write("meminfo", "MemFree:  10 kB\nMemTotal:       24000000 kB\n")); got != 24000000<<10 {
		t.Errorf("MemTotal read as %d", got)
	}
	if got := readLimitFile(filepath.Join(dir, "absent")); got != 0 {
		t.Errorf("absent file read as %d", got)
	}
}

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{900: "900 B", 64 << 20: "64.0 MiB", 3 << 29: "1.5 GiB"} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}
