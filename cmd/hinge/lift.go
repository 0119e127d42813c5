package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/lift"
)

type liftOptions struct {
	export        string
	report        string
	constraintTol float64
}

// liftReport is the --report JSON.
type liftReport struct {
	File string `json:"file"`
	problemSizes
	Lifted problemSizes `json:"lifted"`
	// Offset is the value of the potentials that became constant and were
	// dropped: lifted objective + offset = original objective.
	Offset  float64 `json:"offset"`
	Export  string  `json:"export"`
	Map     string  `json:"map"`
	Seconds struct {
		Load  float64 `json:"load"`
		Lift  float64 `json:"lift"`
		Total float64 `json:"total"`
	} `json:"seconds"`
}

func newLiftCmd() *cobra.Command {
	o := &liftOptions{}
	cmd := &cobra.Command{
		Use:   "lift FILE --export OUT [--report R.json]",
		Short: "Find the symmetries of a ground HL-MRF and write the smaller lifted problem",
		Long: `Lift a ground HL-MRF as in Srinivasan et al. (AAAI 2019): color the weighted
factor graph of FILE (exchange format) by color refinement, with exact sums of
coefficients, and merge every color class into one variable, potential or
constraint. The lifted problem has the same form, so any solver for FILE
solves it; giving each original variable its class's value then gives an
optimal solution of FILE.

Outputs (written atomically):
  OUT       the lifted problem in the exchange format. Its header comments
            give the sizes and the constant offset: potentials whose
            coefficients all cancel within the symmetry are constant; they are
            dropped and their total value is the offset, so
            lifted objective + offset = original objective.
  OUT.map   one line per original variable column (in column order): the
            1-based column of its lifted variable in OUT.
OUT is a file path: a device, FIFO or standard output has no directory to
hold OUT.map, and is refused.

Sizes before and after and the seconds taken are printed; --report writes
them as JSON. Exit status 1 if the hard constraints are found infeasible (a
constraint that cancels to a false constant statement, false by more than
--constraint-tol, the tolerance 'hinge solve' gives the original: an observed
0.9999999 under a hard x = 1 leaves 0 = 1e-7, which holds), 2 for bad input.`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.export, "export", "", "write the lifted problem to this file, and the variable map to this file + .map (required)")
	f.StringVar(&o.report, "report", "", "write a JSON report to this file")
	f.Float64Var(&o.constraintTol, "constraint-tol", admm.DefaultConstraintTol, "how far a constraint whose coefficients all cancel may fail and still hold (as 'hinge solve --constraint-tol')")
	return cmd
}

func (o *liftOptions) run(ctx context.Context, path string, stdout, stderr io.Writer) error {
	if o.export == "" {
		return badInput(errors.New("--export OUT is required"))
	}
	if !(o.constraintTol >= 0) || math.IsInf(o.constraintTol, 1) {
		return badInput(fmt.Errorf("--constraint-tol %v must be a finite number >= 0", o.constraintTol))
	}
	if err := refuseSidecar("--export", o.export, o.export+".map", "variable map"); err != nil {
		return err
	}
	if err := checkOutputs([]string{path}, output{flag: "--export", path: o.export}, output{flag: "--export", path: o.export + ".map"},
		output{flag: "--report", path: o.report}); err != nil {
		return err
	}
	// The report written to standard output or error stays whole.
	stdout, _ = routeMessages(ctx, stdout, stderr, false, o.report, o.export)
	start := time.Now()
	p, err := readFile(ctx, path, hlmrf.Read)
	if err != nil {
		return err
	}
	if err := checkProblemFits(path, p); err != nil {
		return err
	}
	var rep liftReport
	rep.Seconds.Load = time.Since(start).Seconds()

	t := time.Now()
	l, err := whileRunning(ctx, func() (*lift.Lifted, error) { return lift.LiftWithin(p, o.constraintTol) })
	if isCancel(err) {
		return err
	}
	if ie := (*lift.InfeasibleError)(nil); errors.As(err, &ie) {
		return failed(fmt.Errorf("%s: the hard constraints are infeasible: constraint #%d (counting constraint lines from 1) and the %d constraints symmetric to it cancel to 0 %s %v", path, ie.Constraint+1, ie.Members-1, ie.Kind, ie.Const))
	}
	if err != nil {
		return failed(fmt.Errorf("%s: %w", path, err))
	}
	rep.Seconds.Lift = time.Since(t).Seconds()
	if err := interrupted(ctx); err != nil {
		return err
	}

	rep.File, rep.Export, rep.Map = path, o.export, o.export+".map"
	rep.problemSizes = sizesOf(p)
	lp := l.Problem
	rep.Lifted = sizesOf(lp)
	rep.Offset = l.Offset

	err = atomicfile.Write(o.export, func(w io.Writer) error {
		fmt.Fprintf(w, "# hinge lift of %s: %d variables, %d potentials, %d constraints\n", filepath.Base(path), rep.Variables, rep.Potentials, rep.Constraints)
		fmt.Fprintf(w, "# lifted: %d variables, %d potentials, %d constraints; class map in %s\n", rep.Lifted.Variables, rep.Lifted.Potentials, rep.Lifted.Constraints, filepath.Base(rep.Map))
		fmt.Fprintf(w, "# offset: %s (lifted objective + offset = original objective)\n", strconv.FormatFloat(l.Offset, 'g', -1, 64))
		return hlmrf.Write(w, lp)
	})
	if err != nil {
		return failed(err)
	}
	err = atomicfile.Write(rep.Map, func(w io.Writer) error {
		buf := make([]byte, 0, 16)
		for _, k := range l.VarClass {
			buf = strconv.AppendInt(buf[:0], int64(k)+1, 10)
			buf = append(buf, '\n')
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return failed(err)
	}
	rep.Seconds.Total = time.Since(start).Seconds()

	pct := func(after, before int) string {
		if before == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(after)/float64(before))
	}
	fmt.Fprintf(stdout, "hinge lift %s -> %s\n", path, o.export)
	fmt.Fprintf(stdout, "  variables   %10d -> %10d  (%s)\n", rep.Variables, rep.Lifted.Variables, pct(rep.Lifted.Variables, rep.Variables))
	fmt.Fprintf(stdout, "  potentials  %10d -> %10d  (%s)\n", rep.Potentials, rep.Lifted.Potentials, pct(rep.Lifted.Potentials, rep.Potentials))
	fmt.Fprintf(stdout, "  constraints %10d -> %10d  (%s)\n", rep.Constraints, rep.Lifted.Constraints, pct(rep.Lifted.Constraints, rep.Constraints))
	if l.Offset != 0 {
		fmt.Fprintf(stdout, "  constant offset %s (dropped constant potentials)\n", strconv.FormatFloat(l.Offset, 'g', -1, 64))
	}
	fmt.Fprintf(stdout, "  seconds: load %.3f lift %.3f total %.3f\n", rep.Seconds.Load, rep.Seconds.Lift, rep.Seconds.Total)
	if o.report != "" {
		if err := writeJSON(o.report, &rep); err != nil {
			return failed(err)
		}
	}
	return nil
}
