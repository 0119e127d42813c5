// Package memlimit parses memory sizes, finds how much memory the process
// may use (the cgroup's limit or the machine's memory) and sets Go's soft
// memory limit.
package memlimit

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
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
		return 0, fmt.Errorf("bad size %q (want bytes or a number with a unit: 512MiB, 2GB, 1.5G)", s)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("bad size %q (want bytes or a number with a unit: 512MiB, 2GB, 1.5G)", s)
	}
	b := v * mult
	if b < 1 || b >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q is out of range (at least 1 byte, below 8 EiB)", s)
	}
	return int64(b), nil
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
// cgroup v2 memory.max, the cgroup v1 memory.limit_in_bytes and the
// machine's MemTotal (/proc/meminfo). It returns 0 when none can be read.
func Available() int64 {
	var best int64
	take := func(n int64) {
		if n > 0 && (best == 0 || n < best) {
			best = n
		}
	}
	take(readLimitFile("/sys/fs/cgroup/memory.max"))
	take(readLimitFile("/sys/fs/cgroup/memory/memory.limit_in_bytes"))
	take(memTotal("/proc/meminfo"))
	return best
}

// Default is 80% of Available, or 0 (no limit) when it is unknown.
func Default() int64 { return Available() / 5 * 4 }

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
