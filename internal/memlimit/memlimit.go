// Package memlimit parses memory sizes, finds how much memory the process
// may use (the cgroup's limit or the machine's memory) and sets Go's soft
// memory limit.
package memlimit

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	numparse "github.com/hinge-srl/hinge/internal/num"
)

// units maps a size suffix (lower case, without a trailing "b") to bytes.
// Decimal (k, m, g, t) and binary (ki, mi, gi, ti) prefixes are both
// accepted; "1.5G" is 1.5*10^9 bytes.
var units = map[string]float64{
	"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12,
	"ki": 1 << 10, "mi": 1 << 20, "gi": 1 << 30, "ti": 1 << 40,
}

// ParseSize parses a size in bytes: a plain number of bytes ("1048576"), or a
// number with a unit: "512MiB", "2GB", "1.5G", "64k". Units are
// case-insensitive; the final "B" is optional.
func ParseSize(s string) (int64, error) {
	b, err := parseBytes(s)
	if err != nil {
		return 0, err
	}
	if b < 1 || b >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q is out of range (at least 1 byte, below 8 EiB)", shown(s))
	}
	return int64(b), nil
}

// parseBytes is ParseSize's number of bytes before its range is checked.
func parseBytes(s string) (float64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	if unit != "b" {
		unit = strings.TrimSuffix(unit, "b")
	} else {
		unit = ""
	}
	mult, ok := units[unit]
	if num == "" || !ok {
		return 0, fmt.Errorf("bad size %q (want bytes or a number with a unit: 512MiB, 2GB, 1.5G)", shown(s))
	}
	v, err := numparse.Parse(num)
	if err != nil {
		return 0, fmt.Errorf("bad size %q (want bytes or a number with a unit: 512MiB, 2GB, 1.5G)", shown(s))
	}
	return v * mult, nil
}

// shown clips a size echoed in a message.
func shown(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// Format writes n bytes for a message: "512 MiB", "1.5 GiB", "900 B".
func Format(n int64) string {
	f := float64(n)
	for _, u := range []struct {
		name string
		size float64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if f >= u.size {
			return strconv.FormatFloat(f/u.size, 'f', 1, 64) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " B"
}

// Available returns the memory the process may use: the smallest of the
// machine's MemTotal (/proc/meminfo), the memory limits of the cgroups
// the process is in (cgroup v2 memory.max, cgroup v1
// memory.limit_in_bytes, of its own cgroup and every ancestor, since a
// parent's limit binds its children) and the address space its resource
// limits leave it (ulimit -v or -d, less what is mapped already). It
// returns 0 when none can be read.
func Available() int64 {
	n := available("/proc/self/cgroup", "/sys/fs/cgroup", "/proc/meminfo")
	if r := rlimitAvailable(); r > 0 && (n == 0 || r < n) {
		n = r
	}
	return n
}

// available is Available with the files it reads named, for tests.
func available(selfCgroup, cgroupRoot, meminfo string) int64 {
	var best int64
	take := func(n int64) {
		if n > 0 && (best == 0 || n < best) {
			best = n
		}
	}
	v2, v1 := cgroupPaths(selfCgroup)
	// The mount's root files cover a cgroup namespace, where
	// /proc/self/cgroup says "/".
	take(readLimitFile(filepath.Join(cgroupRoot, "memory.max")))
	take(readLimitFile(filepath.Join(cgroupRoot, "memory", "memory.limit_in_bytes")))
	for _, d := range ancestors(v2) {
		take(readLimitFile(filepath.Join(cgroupRoot, d, "memory.max")))
		take(readLimitFile(filepath.Join(cgroupRoot, "unified", d, "memory.max")))
	}
	for _, d := range ancestors(v1) {
		take(readLimitFile(filepath.Join(cgroupRoot, "memory", d, "memory.limit_in_bytes")))
	}
	take(memTotal(meminfo))
	return best
}

// cgroupPaths reads the process's cgroup v2 path ("0::/a/b") and cgroup v1
// memory controller path ("4:memory:/a/b") from a /proc/self/cgroup file.
func cgroupPaths(path string) (v2, v1 string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case slices.Contains(strings.Split(parts[1], ","), "memory"):
			v1 = parts[2]
		}
	}
	return v2, v1
}

// ancestors lists a cgroup path and its parents, without the root: "/a/b"
// gives "/a/b", "/a". Paths that climb ("..") are ignored.
func ancestors(p string) []string {
	p = filepath.Clean("/" + p)
	if strings.Contains(p, "..") {
		return nil
	}
	var out []string
	for p != "/" && p != "." {
		out = append(out, p)
		p = filepath.Dir(p)
	}
	return out
}

// Default is 80% of Available, at least Minimum (a process left less
// than that refuses nearly all work, with a message, rather than dying of
// the runtime's out-of-memory error), or 0 (no limit) when it is unknown.
func Default() int64 {
	a := Available()
	if a <= 0 {
		return 0
	}
	return max(a/5*4, Minimum)
}

// Minimum is the smallest limit Resolve accepts: below it the Go runtime
// alone would keep the collector running without pause.
const Minimum = 16 << 20

// readLimitFile reads a cgroup limit: a number of bytes, or "max" (none).
// v1 reports "no limit" as a huge number, which MemTotal then undercuts.
func readLimitFile(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// memTotal reads MemTotal (in kB) from a meminfo file.
func memTotal(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil || kb <= 0 {
			return 0
		}
		return kb << 10
	}
	return 0
}

// Set sets Go's soft memory limit to n bytes (n <= 0: no limit) and returns
// the previous setting, for Restore.
func Set(n int64) (previous int64) {
	if n <= 0 {
		n = math.MaxInt64
	}
	return debug.SetMemoryLimit(n)
}

// Restore puts back a limit returned by Set.
func Restore(previous int64) { debug.SetMemoryLimit(previous) }

// Current returns Go's soft memory limit, or 0 when there is none (the
// runtime's default, math.MaxInt64). Library code that sizes buffers or
// budgets reads the limit a command set with Set here.
func Current() int64 {
	n := debug.SetMemoryLimit(-1)
	if n == math.MaxInt64 {
		return 0
	}
	return n
}

// Resolve chooses the limit of a run: the flag's value when it was given,
// else the environment variable's when set and not empty, else Default.
// Errors name where the bad size came from (flagName or envName); a size
// below Minimum is refused.
func Resolve(flagValue string, flagSet bool, flagName, envValue, envName string) (int64, error) {
	src, val := flagName, flagValue
	if !flagSet {
		if strings.TrimSpace(envValue) == "" {
			return Default(), nil
		}
		src, val = envName, envValue
	}
	// A size below Minimum (0 too) is told the minimum, not ParseSize's
	// range of 1 byte and up.
	if b, err := parseBytes(val); err == nil && b < Minimum {
		return 0, fmt.Errorf("%s %s: below the minimum of %s", src, shown(strings.TrimSpace(val)), Format(Minimum))
	}
	n, err := ParseSize(val)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", src, err)
	}
	return n, nil
}
