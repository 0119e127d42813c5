// Command ground benchmarks grounding of the transitivity model
//
//	1: Knows(A, B) & Knows(B, C) -> Knows(A, C) ^2
//
// on generated data (hinge/ground/groundtest.Transitivity: n people, each
// linking to -degree others at random, each link observed true with
// probability -observed, otherwise a target). Sizes are named by the number
// of ground potentials they give with the default degree 10 and observed
// 0.5: 10k (130 people), 100k (1300), 1M (13000); any other size is a number
// of people.
//
// Each run grounds a freshly generated store (so index building is
// included) and the figures are medians over -runs runs: wall time, process
// CPU time (user+system, all threads), ground potentials per wall second,
// bytes allocated per potential (runtime.MemStats.TotalAlloc) and heap in
// use after GC with the result alive, per potential.
//
// With -psl DIR it writes the first size's model and data as PSL files
// instead (DIR/transitivity.psl, transitivity.data, knows_obs.txt,
// knows_targets.txt), so that hinge ground can be timed on them, in memory
// and with --db.
//
// Usage:
//
//	go -C bench run ./ground [-sizes 10k,100k,1M] [-threads 1,2] [-runs 5] [-json out.json]
//	go -C bench run ./ground -sizes 1M -psl DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/ground/groundtest"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/internal/measure"
)

var namedSizes = map[string]int{"10k": 130, "100k": 1300, "1M": 13000}

// row is one line of the report.
type row struct {
	Size           string  `json:"size"`
	People         int     `json:"people"`
	Threads        int     `json:"threads"`
	Potentials     int     `json:"potentials"`
	Variables      int     `json:"variables"`
	WallSeconds    float64 `json:"wall_seconds_median"`
	CPUSeconds     float64 `json:"cpu_seconds_median"`
	PotentialsPerS float64 `json:"potentials_per_second"`
	AllocBytesPer  float64 `json:"alloc_bytes_per_potential"`
	HeapBytesPer   float64 `json:"heap_bytes_per_potential"`
	Runs           int     `json:"runs"`
}

func main() {
	sizes := flag.String("sizes", "10k,100k,1M", "comma-separated sizes: 10k, 100k, 1M or a number of people")
	threads := flag.String("threads", "1,2", "comma-separated thread counts")
	runs := flag.Int("runs", 5, "runs per configuration (the median is reported)")
	degree := flag.Int("degree", 10, "links per person")
	observed := flag.Float64("observed", 0.5, "probability that a link is observed (otherwise a target)")
	seed := flag.Uint64("seed", 1, "random seed of the generator")
	jsonOut := flag.String("json", "", "also write the report as JSON to this file")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the grounding runs")
	psl := flag.String("psl", "", "write the first size's model and data as PSL files to this directory instead of benchmarking")
	flag.Parse()
	if *psl != "" {
		if err := writePSL(*psl, strings.Split(*sizes, ",")[0], *degree, *observed, *seed); err != nil {
			fmt.Fprintln(os.Stderr, "ground bench:", err)
			os.Exit(2)
		}
		return
	}
	if err := run(*sizes, *threads, *runs, *degree, *observed, *seed, *jsonOut, *cpuprofile); err != nil {
		fmt.Fprintln(os.Stderr, "ground bench:", err)
		os.Exit(2)
	}
}

// people returns the number of people of a named size or a number.
func people(name string) (int, error) {
	name = strings.TrimSpace(name)
	if n, ok := namedSizes[name]; ok {
		return n, nil
	}
	n, err := strconv.Atoi(name)
	if err != nil || n < 2 {
		return 0, fmt.Errorf("-sizes: %q is neither 10k, 100k, 1M nor a number of people", name)
	}
	return n, nil
}

// writePSL writes the transitivity model of one size as PSL files in dir.
func writePSL(dir, size string, degree int, observed float64, seed uint64) error {
	n, err := people(size)
	if err != nil {
		return err
	}
	m, s, err := groundtest.Transitivity(n, degree, observed, seed)
	if err != nil {
		return err
	}
	return groundtest.WritePSL(dir, m, s)
}

func run(sizes, threads string, runs, degree int, observed float64, seed uint64, jsonOut, cpuprofile string) error {
	if runs < 1 {
		return fmt.Errorf("-runs %d: need at least 1", runs)
	}
	var ths []int
	for _, f := range strings.Split(threads, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("-threads: %q is not a positive integer", f)
		}
		ths = append(ths, n)
	}
	stopProfile, err := measure.StartCPUProfile(cpuprofile)
	if err != nil {
		return err
	}
	defer stopProfile()
	var report []row
	fmt.Printf("%-6s %7s %7s %10s %10s %9s %9s %12s %9s %9s\n", "size", "people", "threads", "potentials", "variables", "wall_s", "cpu_s", "pot/s", "alloc_B/p", "heap_B/p")
	for _, name := range strings.Split(sizes, ",") {
		name = strings.TrimSpace(name)
		people, err := people(name)
		if err != nil {
			return err
		}
		for _, th := range ths {
			r := row{Size: name, People: people, Threads: th, Runs: runs}
			var walls, cpus, allocs, heaps []float64
			for range runs {
				m, s, err := groundtest.Transitivity(people, degree, observed, seed)
				if err != nil {
					return err
				}
				var before, after, gcd runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				cpu0 := measure.CPUSeconds()
				t0 := time.Now()
				res, err := ground.Ground(m, s, ground.Options{Threads: th})
				wall := time.Since(t0).Seconds()
				cpu := measure.CPUSeconds() - cpu0
				if err != nil {
					return err
				}
				runtime.ReadMemStats(&after)
				runtime.GC()
				runtime.ReadMemStats(&gcd)
				r.Potentials = res.Problem.NumPotentials()
				r.Variables = res.Problem.NumVars
				pots := float64(max(r.Potentials, 1))
				walls = append(walls, wall)
				cpus = append(cpus, cpu)
				allocs = append(allocs, float64(after.TotalAlloc-before.TotalAlloc)/pots)
				heaps = append(heaps, (float64(gcd.HeapAlloc)-float64(before.HeapAlloc))/pots)
				runtime.KeepAlive(res)
				runtime.KeepAlive(s)
			}
			r.WallSeconds, r.CPUSeconds = measure.Median(walls), measure.Median(cpus)
			r.PotentialsPerS = float64(r.Potentials) / r.WallSeconds
			r.AllocBytesPer, r.HeapBytesPer = measure.Median(allocs), measure.Median(heaps)
			fmt.Printf("%-6s %7d %7d %10d %10d %9.3f %9.3f %12.0f %9.1f %9.1f\n", r.Size, r.People, r.Threads, r.Potentials, r.Variables,
				r.WallSeconds, r.CPUSeconds, r.PotentialsPerS, r.AllocBytesPer, r.HeapBytesPer)
			report = append(report, r)
		}
	}
	if jsonOut != "" {
		return atomicfile.Write(jsonOut, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(report)
		})
	}
	return nil
}
