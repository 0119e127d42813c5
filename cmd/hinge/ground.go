package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/atomicfile"
)

type groundOptions struct {
	programFlags
	export, report string
	threads        int
}

type groundReport struct {
	problemSizes
	Rules   []ruleReport    `json:"rules"`
	Seconds groundReportSec `json:"seconds"`
}

type groundReportSec struct {
	Load   float64 `json:"load"`
	Ground float64 `json:"ground"`
	Total  float64 `json:"total"`
}

func newGroundCmd() *cobra.Command {
	o := &groundOptions{}
	cmd := &cobra.Command{
		Use:   "ground --model M.psl --data D.data [--export FILE] [--report R.json]",
		Short: "Ground a PSL model over its data and report the ground problem's size per rule",
		Long: `Ground a PSL model over its data into a hinge-loss MRF and print, per rule,
how many ground potentials and hard constraints it produced, and totals.

--export writes the ground problem in the exchange format (one potential per
line, 'w 0:c j:x_j ... #^d'; constraints as '<= 0:c ...' and '= 0:c ...') and
FILE.atoms, the atom of each variable column, one 'PRED<TAB>arg1<TAB>...' line
per column, so the problem can be solved (hinge solve) or lifted (hinge lift)
outside the rule language. FILE is a file path: a device, FIFO or standard
output has no directory to hold FILE.atoms, and is refused.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.add(cmd, "infer")
	cmd.Flags().StringVar(&o.export, "export", "", "write the ground problem (exchange format) to FILE and its atoms to FILE.atoms")
	cmd.Flags().StringVar(&o.report, "report", "", "write a JSON report to this file")
	cmd.Flags().IntVar(&o.threads, "threads", 0, "grounding threads (0: all cores); the result does not depend on it")
	return cmd
}

func (o *groundOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	if o.threads < 0 {
		return badInput(fmt.Errorf("--threads %d: must be >= 0", o.threads))
	}
	if err := refuseSidecar("--export", o.export, atomsPath(o.export), "atoms file"); err != nil {
		return err
	}
	outs := []output{{flag: "--export", path: o.export}, {flag: "--export", path: atomsPath(o.export)},
		{flag: "--report", path: o.report}}
	// The outputs before loading too (a large data set takes a while);
	// that none is an input is known once the program is read.
	if err := checkOutputs(nil, outs...); err != nil {
		return err
	}
	// The report written to standard output or error stays whole.
	stdout, o.stderr = routeMessages(ctx, stdout, stderr, false, o.report, o.export)
	prog, err := whileRunning(ctx, o.load) // left behind if the run is cancelled
	if err != nil {
		return err
	}
	if err := checkOutputs(programInputs(&o.programFlags, prog), outs...); err != nil {
		return err
	}
	o.estimates = stdout
	g, groundSec, err := o.ground(ctx, prog, o.threads)
	if err != nil {
		return err
	}
	printGroundSummary(stdout, prog, g, groundSec)
	if err := interrupted(ctx); err != nil {
		return err
	}
	if o.export != "" {
		if err := atomicfile.Write(o.export, func(w io.Writer) error { return hlmrf.Write(w, g.Problem) }); err != nil {
			return failed(err)
		}
		if err := atomicfile.Write(atomsPath(o.export), func(w io.Writer) error { return hlmrf.WriteAtoms(w, g.AtomNames()) }); err != nil {
			return failed(err)
		}
	}
	if o.report != "" {
		rep := groundReport{
			problemSizes: sizesOf(g.Problem),
			Rules:        ruleReports(g),
			Seconds:      groundReportSec{Load: prog.Seconds, Ground: groundSec, Total: time.Since(start).Seconds()},
		}
		if err := writeJSON(o.report, rep); err != nil {
			return failed(err)
		}
	}
	return nil
}

// refuseSidecar refuses an export that is written through (a device, a
// FIFO, standard output) when the command writes a second file beside it,
// named by the export's path and a suffix (sidecar): beside /dev/null
// that would be /dev/null.atoms, a regular file created in /dev (or a
// file that cannot be created there at all, after the whole run). An
// export that does not resolve is left to checkOutputs to report.
func refuseSidecar(flag, export, sidecar, what string) error {
	if export == "" {
		return nil
	}
	t, err := atomicfile.Resolve(export)
	if err != nil || !t.Through() {
		return nil
	}
	return badInput(fmt.Errorf("%s %s is written through (a device, a FIFO or standard output), and its %s %s cannot be written beside it: give %s a file path FILE, and the %s is written to FILE%s",
		flag, clipPath(export), what, clipPath(sidecar), flag, what, strings.TrimPrefix(sidecar, export)))
}

// atomsPath is the file beside an exported problem that names its atoms.
func atomsPath(export string) string {
	if export == "" {
		return ""
	}
	return export + ".atoms"
}
