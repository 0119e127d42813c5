package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/internal/memlimit"
	"github.com/hinge-srl/hinge/internal/progress"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/pipeline"
	"github.com/hinge-srl/hinge/store/pgstore"
)

// programFlags are the flags that name a PSL program: rules and data.
type programFlags struct {
	model, data, config, partition string
	db, dbSchema                   string      // PostgreSQL URL (--db, else HINGE_DB) and schema
	dbFlag                         *pflag.Flag // --db, to tell an empty --db from none
	dbRead                         bool        // --db-read: atoms from the schema's tables, not --data's files
	dbReplace                      bool        // --db-replace: replace tables hinge did not create
	quiet                          bool
	stderr                         io.Writer           // progress display; the command's injected stderr
	ctx                            context.Context     // the run's, set when it starts (addDB)
	lockLost                       func(error)         // cancels ctx: the schema's lock was lost (addDB)
	schemaLock                     *pgstore.SchemaLock // --db-schema held for the run (connectDB), released at its end
	estimates                      io.Writer           // when set, large grounding estimates are printed here (hinge ground)
}

// lockWatchEvery is how often a --db run checks that it still holds its
// schema's lock.
const lockWatchEvery = 500 * time.Millisecond

// bigEstimate is the estimated number of groundings above which hinge
// ground prints the estimate before grounding the rule.
const bigEstimate = 1e7

// add registers the flags; partition is the JSON config split the command
// reads by default (infer or learn).
// The command applies the JSON config's options before it runs, as PSL's
// -D (applyConfigOptions).
func (f *programFlags) add(cmd *cobra.Command, partition string) {
	cmd.Flags().StringVarP(&f.model, "model", "m", "", "PSL rules file (.psl)")
	f.addDB(cmd)
	f.addData(cmd, partition)
}

// addDB registers --db, --db-schema, --db-read and --db-replace, and makes
// the command (whose RunE is set by now) release the schema's lock, taken
// by its first connection (connectDB), when it ends.
func (f *programFlags) addDB(cmd *cobra.Command) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(cmd *cobra.Command, args []string) error {
			// A lost schema lock (connectDB's watch) cancels the run.
			ctx, cancel := context.WithCancelCause(cmd.Context())
			defer cancel(nil)
			cmd.SetContext(ctx)
			f.ctx, f.lockLost = ctx, cancel
			defer func() {
				// Held until the run's outputs are in place: an
				// --output-table commits with them.
				lock := f.schemaLock
				atomicfile.AfterEnd(ctx, func() { lock.Release() })
				f.schemaLock = nil
			}()
			err := run(cmd, args)
			if lerr := f.schemaLock.Check(); lerr != nil {
				// Whatever the run wrote came from tables another run may
				// have replaced: none of it is put in place.
				atomicfile.FailActive()
				return failed(fmt.Errorf("--db: %w", lerr))
			}
			return err
		}
	}
	cmd.Flags().StringVar(&f.db, "db", "", "ground in PostgreSQL at this URL (postgres://user@host:port/db; default $"+dbEnv+"; --db '' grounds in memory even when $"+dbEnv+" is set): the atoms are copied into one table per predicate and the rules are joined there")
	f.dbFlag = cmd.Flags().Lookup("db")
	cmd.Flags().StringVar(&f.dbSchema, "db-schema", pgstore.DefaultSchema, "PostgreSQL schema for --db's tables (hinge's own tables there are replaced on every run unless --db-read)")
	cmd.Flags().BoolVar(&f.dbRead, "db-read", false, "with --db: ground over the atoms already in --db-schema's tables (docs/scale.md gives their schema); --data or --config then only declares the predicates")
	cmd.Flags().BoolVar(&f.dbReplace, "db-replace", false, "with --db: also replace tables of --db-schema that hinge did not create (not listed in its hinge_tables), such as those of an older hinge, and an earlier --output-table named like a predicate's table")
}

// checkDB checks the --db flags, when grounding in PostgreSQL, before any
// work: a URL that is not a PostgreSQL one or does not parse, and a schema
// name PostgreSQL would not keep as it is, are bad input.
func (f *programFlags) checkDB() error {
	url := f.dbURL()
	if url == "" {
		return nil
	}
	if scheme, _, ok := strings.Cut(url, "://"); ok && scheme != "postgres" && scheme != "postgresql" {
		return badInput(fmt.Errorf("--db: a %s:// URL; hinge reads only PostgreSQL URLs (postgres://user@host:port/db or postgresql://...)", textfile.Clip(scheme)))
	}
	if _, err := pgx.ParseConfig(url); err != nil {
		return badInput(fmt.Errorf("--db: %w", err))
	}
	if err := pgstore.CheckIdentifier("schema", f.dbSchema); err != nil {
		return badInput(fmt.Errorf("--db-schema: %w (the default is %s)", err, pgstore.DefaultSchema))
	}
	return nil
}

// dbError types an error of pgstore: a table hinge would replace but did
// not create, or a values table (--output-table) it would replace by a
// predicate's atoms, is bad input (exit status 2), said with what to do;
// anything else fails the run.
func (f *programFlags) dbError(err error) error {
	var ve *pgstore.ValuesError
	if errors.As(err, &ve) {
		return badInput(fmt.Errorf("--db: %w: rename it (ALTER TABLE ... RENAME TO ...) to keep it, give another --db-schema, or give --db-replace to let hinge replace it", err))
	}
	var fe *pgstore.ForeignError
	if !errors.As(err, &fe) {
		return failed(err)
	}
	what := "drop or rename it, give another --db-schema, or give --db-replace to let hinge replace it"
	if fe.NoList {
		what = "if an older hinge wrote the schema's tables, run once with --db-replace (hinge lists its tables from then on); else give another --db-schema"
	}
	return badInput(fmt.Errorf("--db: %w: %s", err, what))
}

// dbEnv names the environment variable that gives --db's default.
const dbEnv = "HINGE_DB"

// addData registers the flags that name the data only (no --model), for
// commands that make their own rules; the command applies the JSON config's
// options before it runs (applyConfigOptions).
func (f *programFlags) addData(cmd *cobra.Command, partition string) {
	fl := cmd.Flags()
	fl.StringVarP(&f.data, "data", "d", "", "PSL data file (.data, YAML)")
	fl.StringVar(&f.config, "config", "", "PSL 3 JSON config (rules, predicates and data in one file), instead of --data")
	fl.StringVar(&f.partition, "partition", partition, "data split of a JSON config: infer or learn")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress display even on a terminal")
	f.stderr = cmd.ErrOrStderr()
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error {
		f.stderr = cmd.ErrOrStderr()
		return f.applyConfigOptions(cmd)
	}
}

// load reads the program; every failure is bad input (exit status 2).
func (f *programFlags) load() (*pipeline.Program, error) {
	if f.data == "" && f.config == "" {
		if f.model == "" { // nothing given: name every input the command needs
			return nil, badInput(fmt.Errorf("give --model M.psl and --data D.data, or --config C.json (rules, predicates and data in one file)"))
		}
		return nil, badInput(fmt.Errorf("give --data FILE.data or --config FILE.json"))
	}
	if err := f.checkDB(); err != nil {
		return nil, err
	}
	prog, err := pipeline.Load(pipeline.Inputs{Model: f.model, Data: f.data, Config: f.config, Partition: f.partition})
	if err != nil {
		return nil, badInput(err)
	}
	f.warn(prog)
	return prog, nil
}

// warn prints the program's warnings, except under --db-read, where the
// atoms are read from the database later (loadDB warns then).
func (f *programFlags) warn(prog *pipeline.Program) {
	if !f.dbRead {
		f.printWarnings(prog.Warnings)
	}
}

// printWarnings writes warnings to stderr, one a line.
func (f *programFlags) printWarnings(warnings []string) {
	for _, w := range warnings {
		fmt.Fprintln(f.stderr, "hinge: warning:", w)
	}
}

// loadData reads the data without rules (pipeline.LoadData); every failure
// is bad input.
func (f *programFlags) loadData() (*pipeline.Program, error) {
	if f.data == "" && f.config == "" {
		return nil, badInput(fmt.Errorf("give --data FILE.data or --config FILE.json"))
	}
	if err := f.checkDB(); err != nil {
		return nil, err
	}
	prog, err := pipeline.LoadData(pipeline.Inputs{Data: f.data, Config: f.config, Partition: f.partition})
	if err != nil {
		return nil, badInput(err)
	}
	f.warn(prog)
	return prog, nil
}

// ground grounds the program on threads workers (0: all cores), with a
// progress bar on a terminal; a cancelled ctx stops it.
func (f *programFlags) ground(ctx context.Context, prog *pipeline.Program, threads int) (*ground.Result, float64, error) {
	return f.groundTo(ctx, prog, threads, nil)
}

// groundTo is ground with the ground problem passed to sink as it is
// grounded (ground.Options.Sink) when sink is not nil.
func (f *programFlags) groundTo(ctx context.Context, prog *pipeline.Program, threads int, sink ground.Sink) (*ground.Result, float64, error) {
	rep := progress.New(f.stderr, f.quiet, "hinge")
	defer rep.Done()
	rules := len(prog.Model.Rules)
	rep.Stage("grounding", rules)
	start := time.Now()
	opt := ground.Options{
		Threads: threads,
		Progress: func(rule, done, total int) {
			if done == total {
				rep.Set(rule + 1)
			} else {
				rep.Set(rule) // rules done so far (a line where stderr is not a terminal)
			}
		},
		MemoryLimit: memlimit.Current(),
		Sink:        sink,
		Context:     ctx,
	}
	if f.estimates != nil {
		opt.Estimate = func(r *model.Rule, e ground.Estimate) {
			if e.Groundings > bigEstimate {
				kept := ""
				if e.Emitted < e.Groundings {
					kept = fmt.Sprintf(", of which about %.1e kept", e.Emitted) // worked out when the limit is in question
				}
				fmt.Fprintf(f.estimates, "estimate: about %.1e groundings enumerated%s (%s) for %s: %s\n", e.Groundings, kept, e.Cause, r.Pos, pipeline.RuleText(r))
			}
		}
	}
	if f.dbRead && f.dbURL() == "" {
		return nil, 0, badInput(errors.New("--db-read needs --db (or HINGE_DB)"))
	}
	if f.dbURL() != "" {
		db, err := f.loadDB(prog)
		if err != nil {
			return nil, 0, err
		}
		defer db.Close()
		opt.Joiner = db.Joiner()
	}
	g, err := prog.Ground(opt)
	if err != nil {
		return nil, 0, groundError(err)
	}
	return g, time.Since(start).Seconds(), nil
}

// dbURL is --db when given (an empty --db means in memory), else $HINGE_DB, else
// "" (ground in memory).
func (f *programFlags) dbURL() string {
	if f.dbFlag != nil && f.dbFlag.Changed {
		return f.db
	}
	return os.Getenv(dbEnv)
}

// runCtx is the run's context (Background before the run starts).
func (f *programFlags) runCtx() context.Context {
	if f.ctx == nil {
		return context.Background()
	}
	return f.ctx
}

// connectDB connects to PostgreSQL at dbURL, once it holds --db-schema for
// the run (pgstore.LockSchema; a message says whom it waits for). A URL
// that does not parse is bad input; a server that cannot be reached fails
// the run (exit status 1).
func (f *programFlags) connectDB() (*pgstore.DB, error) {
	if err := f.checkDB(); err != nil {
		return nil, err
	}
	if f.schemaLock == nil {
		// The schema is this run's until it ends: another run on it
		// (loading other atoms into tables of the same names, or creating
		// the schema) waits, and this one waits for it.
		l, err := pgstore.LockSchema(f.runCtx(), f.dbURL(), f.dbSchema, func(holder string) {
			fmt.Fprintf(f.stderr, "hinge: waiting for another run using PostgreSQL schema %s to end (%s)\n", f.dbSchema, holder)
		})
		if err != nil {
			return nil, failed(fmt.Errorf("--db: %w", err))
		}
		f.schemaLock = l
		if f.lockLost != nil {
			// A server gone or a session ended stops the run within about a
			// second, with nothing written.
			l.Watch(lockWatchEvery, f.lockLost)
		}
	}
	// The run's context bounds every statement: Ctrl-C or a lost lock
	// cancels the one under way (a join went on to its end, up to 1.3 s).
	db, err := pgstore.Connect(f.runCtx(), f.dbURL(), f.dbSchema)
	if err != nil {
		return nil, failed(fmt.Errorf("--db: %w", err))
	}
	db.Replace = f.dbReplace
	return db, nil
}

// loadDB connects to PostgreSQL (connectDB) and copies the program's atoms
// in, or with --db-read replaces the program's store by the tables' atoms.
// A database that fails fails the run (exit status 1).
func (f *programFlags) loadDB(prog *pipeline.Program) (*pgstore.DB, error) {
	start := time.Now()
	// What PostgreSQL cannot hold is bad input, found before connecting.
	check := pgstore.CheckStore(prog.Store)
	if f.dbRead {
		check = pgstore.CheckModel(prog.Model)
	}
	if check != nil {
		return nil, badInput(fmt.Errorf("--db: %w", check))
	}
	db, err := f.connectDB()
	if err != nil {
		return nil, err
	}
	if f.dbRead {
		if obs, tgt, truth := prog.Store.Counts(); obs+tgt+truth > 0 {
			db.Close()
			return nil, badInput(errors.New("--db-read reads the atoms from the database, but --data or --config lists atoms too: give one that only declares the predicates"))
		}
		s, err := db.Read(prog.Model)
		if err != nil {
			db.Close()
			var me *pgstore.MissingError
			var ce *pgstore.ContentError
			if errors.As(err, &me) || errors.As(err, &ce) {
				return nil, badInput(fmt.Errorf("--db-read: %w", err))
			}
			return nil, failed(err)
		}
		prog.Store = s
		prog.Warnings = pipeline.StoreWarnings(s)
		f.printWarnings(prog.Warnings)
	} else if err := db.Load(prog.Store); err != nil {
		db.Close()
		return nil, f.dbError(err)
	}
	if !f.quiet {
		verb := "copied into"
		if f.dbRead {
			verb = "read from"
		}
		fmt.Fprintf(f.stderr, "hinge: atoms %s PostgreSQL schema %s in %.3f s\n", verb, f.dbSchema, time.Since(start).Seconds())
	}
	return db, nil
}

// groundError types a grounding error: a rule whose groundings do not fit
// in the memory limit fails the run (exit status 1); anything else is bad
// input.
func groundError(err error) error {
	if isCancel(err) {
		return failed(err) // the run was cancelled, not the input bad
	}
	var me *ground.MemoryError
	if errors.As(err, &me) {
		return failed(fmt.Errorf("%w (%s)", err, memoryLimitFrom))
	}
	var je *ground.JoinError
	if errors.As(err, &je) {
		return failed(err) // the database failed, not the input
	}
	return badInput(err)
}

// problemSizes counts the parts of a ground problem in a JSON report.
type problemSizes struct {
	Variables   int `json:"variables"`
	Potentials  int `json:"potentials"`
	Constraints int `json:"constraints"`
}

func sizesOf(p *hlmrf.Problem) problemSizes {
	return problemSizes{Variables: p.NumVars, Potentials: p.NumPotentials(), Constraints: p.NumConstraints()}
}

// groundSizes counts a grounding's parts from its rules' statistics (its
// Problem is empty when it went to a sink).
func groundSizes(g *ground.Result) problemSizes {
	sz := problemSizes{Variables: g.Problem.NumVars}
	for _, rs := range g.Rules {
		sz.Potentials += rs.Potentials
		sz.Constraints += rs.Constraints
	}
	return sz
}

// ruleReport is one rule's line in a JSON report.
type ruleReport struct {
	Rule             string `json:"rule"`
	Ground           int    `json:"ground"`
	Potentials       int    `json:"potentials"`
	Constraints      int    `json:"constraints"`
	ConstantViolated int    `json:"constant_violated,omitempty"`
}

func ruleReports(g *ground.Result) []ruleReport {
	out := make([]ruleReport, len(g.Rules))
	for i, rs := range g.Rules {
		out[i] = ruleReport{
			Rule:             pipeline.RuleText(rs.Rule),
			Ground:           rs.Potentials + rs.Constraints,
			Potentials:       rs.Potentials,
			Constraints:      rs.Constraints,
			ConstantViolated: rs.ConstantViolated,
		}
	}
	return out
}

// printGroundSummary prints per-rule ground counts and totals, and warns
// about hard rules that the observed data alone already violates.
func printGroundSummary(w io.Writer, prog *pipeline.Program, g *ground.Result, groundSec float64) {
	obs, tgt, truth := prog.Store.Counts()
	fmt.Fprintf(w, "loaded %d rules, %d predicates: %d observed atoms, %d targets, %d truth atoms (%.3f s)\n",
		len(prog.Model.Rules), len(prog.Model.Predicates), obs, tgt, truth, prog.Seconds)
	fmt.Fprintf(w, "%11s %11s  %s\n", "potentials", "constraints", "rule")
	for _, rs := range g.Rules {
		fmt.Fprintf(w, "%11d %11d  %s\n", rs.Potentials, rs.Constraints, pipeline.RuleText(rs.Rule))
	}
	sz := groundSizes(g)
	fmt.Fprintf(w, "%11d %11d  total: %d variables, grounded in %.3f s\n", sz.Potentials, sz.Constraints, sz.Variables, groundSec)
	for _, rs := range g.Rules {
		if rs.ConstantViolated > 0 {
			fmt.Fprintf(w, "warning: %s: %d ground constraint(s) of this hard rule are violated by observed atoms alone\n",
				rs.Rule.Pos, rs.ConstantViolated)
		}
	}
}
