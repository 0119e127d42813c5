package memlimit

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

func TestAvailableCgroups(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	meminfo := write("meminfo", "MemTotal:       8000000 kB\n")
	cases := []struct {
		name  string
		self  string
		files map[string]string
		want  int64
	}{
		{"no cgroup limit: MemTotal", "0::/\n", nil, 8000000 << 10},
		{"v2 own cgroup", "0::/a/b\n", map[string]string{"cg/a/b/memory.max": "1073741824\n"}, 1 << 30},
		{"v2 parent binds", "0::/a/b\n", map[string]string{"cg/a/b/memory.max": "max\n", "cg/a/memory.max": "536870912\n"}, 512 << 20},
		{"v2 namespace root", "0::/\n", map[string]string{"cg/memory.max": "268435456\n"}, 256 << 20},
		{"v1 memory controller", "4:memory:/x\n0::/\n", map[string]string{"cg/memory/x/memory.limit_in_bytes": "104857600\n"}, 100 << 20},
		{"v1 unlimited", "4:cpu,memory:/x\n", map[string]string{"cg/memory/x/memory.limit_in_bytes": "9223372036854771712\n"}, 8000000 << 10},
		{"hybrid unified", "0::/u\n", map[string]string{"cg/unified/u/memory.max": "209715200\n"}, 200 << 20},
		{"climbing path ignored", "0::/../../etc\n", nil, 8000000 << 10},
	}
	for i, c := range cases {
		dir := filepath.Join("case", strconv.Itoa(i))
		for rel, text := range c.files {
			write(filepath.Join(dir, rel), text)
		}
		self := write(filepath.Join(dir, "self"), c.self)
		if got := available(self, filepath.Join(root, dir, "cg"), meminfo); got != c.want {
			t.Errorf("%s: available = %d, want %d", c.name, got, c.want)
		}
	}
	if got := available(filepath.Join(root, "absent"), filepath.Join(root, "absent"), filepath.Join(root, "absent")); got != 0 {
		t.Errorf("nothing readable: %d, want 0", got)
	}
}

func TestResolve(t *testing.T) {
	def := Default()
	cases := []struct {
		name          string
		flag          string
		flagSet       bool
		env           string
		want          int64
		wantErrPrefix string
	}{
		{"default", "", false, "", def, ""},
		{"blank env is unset", "", false, "  ", def, ""},
		{"env", "", false, "64MiB", 64 << 20, ""},
		{"flag beats env", "1GiB", true, "64MiB", 1 << 30, ""},
		{"bad flag names the flag", "lots", true, "", 0, "--memory-limit: bad size"},
		{"bad env names the variable", "", false, "12XB", 0, "HINGE_MEMORY_LIMIT: bad size"},
		{"too small", "1k", true, "", 0, "--memory-limit 1k: below the minimum"},
		// 0 and a fraction of a byte are below the minimum too, and are
		// told it (they used to get ParseSize's "at least 1 byte").
		{"zero", "0", true, "", 0, "--memory-limit 0: below the minimum of 16.0 MiB"},
		{"zero env", "", false, "0MiB", 0, "HINGE_MEMORY_LIMIT 0MiB: below the minimum of 16.0 MiB"},
		{"fraction of a byte", "0.5", true, "", 0, "--memory-limit 0.5: below the minimum of 16.0 MiB"},
		{"too large", "9EB", true, "", 0, "--memory-limit: bad size"},
		{"too large in range", "10000000000000000000", true, "", 0, "--memory-limit: size \"10000000000000000000\" is out of range"},
		{"huge value clipped", strings.Repeat("9", 1000) + "x", true, "", 0, "--memory-limit: bad size"},
	}
	for _, c := range cases {
		got, err := Resolve(c.flag, c.flagSet, "--memory-limit", c.env, "HINGE_MEMORY_LIMIT")
		if c.wantErrPrefix != "" {
			if err == nil || !strings.HasPrefix(err.Error(), c.wantErrPrefix) || len(err.Error()) > 200 {
				t.Errorf("%s: err = %v, want prefix %q (short)", c.name, err, c.wantErrPrefix)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: Resolve = %d, %v; want %d", c.name, got, err, c.want)
		}
	}
}

func TestSetCurrentRestore(t *testing.T) {
	prev := Set(1 << 30)
	defer Restore(prev)
	if got := Current(); got != 1<<30 {
		t.Errorf("Current after Set(1 GiB) = %d", got)
	}
	Set(0)
	if got := Current(); got != 0 {
		t.Errorf("Current after Set(0) = %d, want 0 (no limit)", got)
	}
}
