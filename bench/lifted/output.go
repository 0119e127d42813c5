package main

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hinge-srl/hinge/bench/internal/results"
	"github.com/hinge-srl/hinge/internal/atomicfile"
)

// compHeader and compRow are the CSV columns every experiment shares: the
// sizes before and after lifting, the median times, iterations and the
// objective check.
var compHeader = []string{
	"variables", "potentials", "constraints",
	"lifted_variables", "lifted_potentials", "lifted_constraints",
	"variable_reduction_pct", "potential_reduction_pct", "constraint_reduction_pct",
	"runs",
	"unlifted_wall_s", "unlifted_cpu_s",
	"lift_wall_s", "lift_cpu_s",
	"lifted_solve_wall_s", "lifted_solve_cpu_s",
	"lifted_total_wall_s", "lifted_total_cpu_s",
	"speedup_wall", "speedup_cpu", "lift_pct_of_unlifted",
	"iterations", "lifted_iterations", "converged",
	"objective", "lifted_objective", "max_rel_objective_diff", "max_value_diff", "max_constraint_violation",
}

func compRow(c *comparison) []string {
	return []string{
		itoa(c.Orig.Vars), itoa(c.Orig.Pots), itoa(c.Orig.Cons),
		itoa(c.Lifted.Vars), itoa(c.Lifted.Pots), itoa(c.Lifted.Cons),
		ff(c.VarReduction(), 2), ff(c.PotReduction(), 2), ff(c.ConReduction(), 2),
		itoa(c.Runs),
		ff(c.Unlifted.Wall, 4), ff(c.Unlifted.CPU, 4),
		ff(c.Lift.Wall, 4), ff(c.Lift.CPU, 4),
		ff(c.LiftedSolve.Wall, 4), ff(c.LiftedSolve.CPU, 4),
		ff(c.LiftedTotal.Wall, 4), ff(c.LiftedTotal.CPU, 4),
		ff(c.Speedup(), 3), ff(c.SpeedupCPU(), 3), ff(c.LiftPct(), 2),
		itoa(c.Iter), itoa(c.LiftedIt), strconv.FormatBool(c.Converged),
		fg(c.Objective), fg(c.LiftedObjective), fe(c.MaxRelObjDiff), fe(c.MaxValueDiff), fe(c.MaxViolation),
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// ff formats with a fixed number of decimals.
func ff(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }

// fg formats with the shortest exact representation.
func fg(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// fe formats a small difference.
func fe(x float64) string { return strconv.FormatFloat(x, 'e', 2, 64) }

// writeCSV writes header and rows to path atomically.
func writeCSV(path string, header []string, rows [][]string) error {
	return results.WriteCSV(path, append([][]string{header}, rows...))
}

// writeFiles writes every file of files into dir atomically, each through
// its fill function.
func writeFiles(dir string, files map[string]func(w *bufio.Writer)) error {
	for name, fill := range files {
		err := atomicfile.Write(filepath.Join(dir, name), func(out io.Writer) error {
			w := bufio.NewWriter(out)
			fill(w)
			return w.Flush()
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// printTable prints a Markdown table.
func printTable(w io.Writer, header []string, rows [][]string) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(header, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(header)))
	for _, r := range rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
	}
	fmt.Fprintln(w)
}

// sizeCell is "before -> after (-x%)".
func sizeCell(before, after int) string {
	return fmt.Sprintf("%d -> %d (-%.1f%%)", before, after, reduction(before, after))
}

// timeCell is "wall (cpu)" in seconds.
func timeCell(t timing) string {
	return fmt.Sprintf("%.3f (%.3f)", t.Wall, t.CPU)
}
