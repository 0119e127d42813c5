// Command scale measures hinge infer end to end on the transitivity model
//
//	1: Knows(A, B) & Knows(B, C) -> Knows(A, C) ^2
//
// at growing sizes (ground/groundtest.Transitivity, degree 10, links
// observed with probability 0.5), in each of four ways:
//
//	memory        ground in memory, solve by ADMM (hinge infer)
//	streaming     ground to a disk cache, solve by streaming DCD (--streaming)
//	pg            ground in PostgreSQL, solve by ADMM (--db)
//	pg-streaming  ground in PostgreSQL into the disk cache, streaming DCD
//
// Each run is the hinge binary (built from this checkout) as a child
// process, so that its peak resident set (getrusage's maxrss) is its own;
// the figures come from its --report: ground and solve seconds, objective,
// relative duality gap, iterations or epochs, cache bytes. Sizes are named
// by their ground potentials: 1M (13,000 people), 10M (130,000), 100M
// (1,300,000); any other size is a number of people. The data files are
// generated once into -dir/SIZE and reused.
//
// The pg modes need -db (or $HINGE_DB) and are skipped without it.
//
// Usage:
//
//	go -C bench run ./scale [-sizes 1M,10M] [-modes memory,streaming] [-dir /tmp/hinge-scale] [-epochs 1000] [-memory-limit 16GiB] [-out scale/results/scale.csv]
package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hinge-srl/hinge/ground/groundtest"
	"github.com/hinge-srl/hinge/internal/atomicfile"
)

var namedSizes = map[string]int{"1M": 13000, "10M": 130000, "100M": 1300000, "1000M": 13000000}

// report is the part of hinge infer's --report that the table shows.
type report struct {
	Method      string   `json:"method"`
	Variables   int      `json:"variables"`
	Potentials  int      `json:"potentials"`
	Objective   float64  `json:"objective"`
	RelativeGap *float64 `json:"relative_gap"`
	Iterations  int      `json:"iterations"`
	Status      string   `json:"status"`
	Streaming   *struct {
		CacheBytes int64 `json:"cache_bytes"`
	} `json:"streaming"`
	Seconds struct {
		Load, Ground, Solve, Total float64
	} `json:"seconds"`
}

func main() {
	sizes := flag.String("sizes", "1M,10M", "comma-separated sizes: 1M, 10M, 100M or a number of people")
	modes := flag.String("modes", "memory,streaming,pg,pg-streaming", "comma-separated modes")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "hinge-scale"), "where the generated data, caches and reports go")
	db := flag.String("db", os.Getenv("HINGE_DB"), "PostgreSQL URL for the pg modes")
	epochs := flag.Int("epochs", 1000, "hinge infer --epochs for the streaming modes")
	maxIter := flag.Int("max-iter", 25000, "hinge infer --max-iter for the ADMM modes")
	memLimit := flag.String("memory-limit", "", "hinge infer --memory-limit (empty: hinge's default, 80% of RAM)")
	out := flag.String("out", "", "append the rows to this CSV file (written atomically)")
	flag.Parse()
	if err := run(*sizes, *modes, *out, settings{dir: *dir, db: *db, memLimit: *memLimit, epochs: *epochs, maxIter: *maxIter}); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

// settings are what every hinge infer run of the benchmark shares.
type settings struct {
	dir, db, memLimit string // -dir, -db, -memory-limit
	epochs, maxIter   int
	bin               string // the hinge binary, built by run
}

func run(sizes, modes, out string, s settings) error {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	// The hinge module's directory (bench/go.mod replaces it by ..).
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/hinge-srl/hinge").Output()
	if err != nil {
		return fmt.Errorf("finding the hinge module (run from the bench module: go -C bench run ./scale): %w", err)
	}
	s.bin = filepath.Join(s.dir, "hinge")
	build := exec.Command("go", "-C", strings.TrimSpace(string(root)), "build", "-o", s.bin, "./cmd/hinge")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building hinge: %w", err)
	}
	header := []string{"size", "mode", "method", "variables", "potentials", "load_s", "ground_s", "solve_s", "wall_s", "peak_rss_mb", "iterations", "status", "objective", "relative_gap", "cache_bytes", "cache_bytes_per_potential"}
	rows := [][]string{}
	fmt.Println(strings.Join(header, "\t"))
	for _, size := range strings.Split(sizes, ",") {
		data, err := generate(s.dir, size)
		if err != nil {
			return err
		}
		for _, mode := range strings.Split(modes, ",") {
			if strings.HasPrefix(mode, "pg") && s.db == "" {
				fmt.Fprintf(os.Stderr, "scale: skipping %s at %s: no -db or $HINGE_DB\n", mode, size)
				continue
			}
			row, err := s.measure(data, size, mode)
			if err != nil {
				return fmt.Errorf("%s %s: %w", size, mode, err)
			}
			fmt.Println(strings.Join(row, "\t"))
			rows = append(rows, row)
		}
	}
	if out == "" {
		return nil
	}
	return appendCSV(out, header, rows)
}

// generate writes the size's model and data once and returns its directory.
func generate(dir, size string) (string, error) {
	n, ok := namedSizes[size]
	if !ok {
		var err error
		if n, err = strconv.Atoi(size); err != nil || n < 2 {
			return "", fmt.Errorf("size %q: want 1M, 10M, 100M or a number of people", size)
		}
	}
	data := filepath.Join(dir, size)
	if _, err := os.Stat(filepath.Join(data, "transitivity.data")); err == nil {
		return data, nil
	}
	t0 := time.Now()
	m, s, err := groundtest.Transitivity(n, 10, 0.5, 1)
	if err != nil {
		return "", err
	}
	if err := groundtest.WritePSL(data, m, s); err != nil {
		return "", err
	}
	fmt.Fprintf(os.Stderr, "scale: generated %s (%d people) in %.1f s\n", size, n, time.Since(t0).Seconds())
	return data, nil
}

// measure runs hinge infer once in a mode and returns its row.
func (s settings) measure(data, size, mode string) ([]string, error) {
	rep := filepath.Join(s.dir, fmt.Sprintf("%s-%s.json", size, mode))
	outDir := filepath.Join(s.dir, fmt.Sprintf("%s-%s.out", size, mode))
	os.RemoveAll(outDir)
	args := []string{"infer", "--model", filepath.Join(data, "transitivity.psl"), "--data", filepath.Join(data, "transitivity.data"),
		"--report", rep, "--output", outDir, "--quiet", "--max-iter", strconv.Itoa(s.maxIter), "--epochs", strconv.Itoa(s.epochs)}
	if s.memLimit != "" {
		args = append(args, "--memory-limit", s.memLimit)
	}
	if strings.HasSuffix(mode, "streaming") {
		args = append(args, "--streaming", "--cache", filepath.Join(s.dir, "cache-"+size))
	}
	switch mode {
	case "memory", "streaming":
		args = append(args, "--db", "") // in memory even when $HINGE_DB is set
	case "pg", "pg-streaming":
		args = append(args, "--db", s.db, "--db-schema", "hinge_scale")
	default:
		return nil, fmt.Errorf("unknown mode %q (want memory, streaming, pg or pg-streaming)", mode)
	}
	cmd := exec.Command(s.bin, args...)
	cmd.Stdout = io.Discard
	var stderr strings.Builder
	cmd.Stderr = &stderr
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0).Seconds()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return nil, fmt.Errorf("%v: %s", err, stderr.String())
	}
	var r report
	b, rerr := os.ReadFile(rep)
	if rerr == nil {
		rerr = json.Unmarshal(b, &r)
	}
	if rerr != nil {
		return nil, fmt.Errorf("no report (%v): %s", rerr, stderr.String())
	}
	os.Remove(rep)
	os.RemoveAll(outDir)
	rss := float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024 // KiB on Linux
	gap, cache, per := "", "", ""
	if r.RelativeGap != nil {
		gap = fmt.Sprintf("%.2g", *r.RelativeGap)
	}
	if r.Streaming != nil {
		cache = strconv.FormatInt(r.Streaming.CacheBytes, 10)
		per = fmt.Sprintf("%.1f", float64(r.Streaming.CacheBytes)/float64(max(1, r.Potentials)))
	}
	f := func(x float64) string { return fmt.Sprintf("%.2f", x) }
	return []string{size, mode, r.Method, strconv.Itoa(r.Variables), strconv.Itoa(r.Potentials),
		f(r.Seconds.Load), f(r.Seconds.Ground), f(r.Seconds.Solve), f(wall), fmt.Sprintf("%.0f", rss),
		strconv.Itoa(r.Iterations), r.Status, fmt.Sprintf("%.8g", r.Objective), gap, cache, per}, nil
}

// appendCSV adds rows to a CSV file (creating it with the header).
func appendCSV(path string, header []string, rows [][]string) error {
	var all [][]string
	if f, err := os.Open(path); err == nil {
		all, err = csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if len(all) == 0 {
		all = [][]string{header}
	}
	all = append(all, rows...)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.WriteAll(all)
		return cw.Error()
	})
}
