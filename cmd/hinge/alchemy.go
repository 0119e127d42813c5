package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/mln"
)

// alchemyOption is one of Alchemy's command-line options (its infer and
// learnwts programs, Alchemy 2) and what hinge makes of it. Alchemy's
// options are words after one dash (-ms, -mwsMaxSteps), which Go's flag
// parser would read as a bundle of one-letter flags (-m -s), so they are
// translated before the flags are read.
type alchemyOption struct {
	name string // without the dash
	// value: the option takes a value (-maxSteps 500); optional: a
	// true/false value may follow (-lazy, -lazy true).
	value, optional bool
	// to are the hinge arguments it becomes, the value appended; the first
	// names the flag, which must exist on the command.
	to []string
	// why, when set, says that hinge has no counterpart, and what to do.
	why string
	// note says why an option with nothing to translate to (to empty,
	// why empty) is accepted: it changes nothing here.
	note string
	// tuffy: the option is Tuffy's, not Alchemy's.
	tuffy bool
}

// owner names whose option o is, for messages.
func (o alchemyOption) owner() string {
	if o.tuffy {
		return "Tuffy's"
	}
	return "Alchemy's"
}

// inferArgs are Alchemy's infer options (Alchemy 2, infer.cpp) that
// differ from hinge mln infer's flags; -i, -e, -r and -q mean the same in
// both.
var inferArgs = []alchemyOption{
	{name: "m", to: []string{"--map", "--true-only"}},
	{name: "a", to: []string{"--map"}},
	{name: "ms", to: []string{"--method", "mcsat"}},
	{name: "p", to: []string{"--method", "gibbs"}},
	{name: "f", value: true, to: []string{"--query-file"}},
	{name: "ow", value: true, to: []string{"--open"}},
	{name: "mwsMaxSteps", value: true, to: []string{"--flips"}},
	{name: "maxSteps", value: true, to: []string{"--samples"}},
	{name: "burnMaxSteps", value: true, to: []string{"--burn-in"}},
	{name: "numChains", value: true, to: []string{"--chains"}},
	{name: "seed", value: true, to: []string{"--seed"}},
	{name: "lazy", optional: true, to: []string{"--lazy"}},
	{name: "cw", value: true, why: "predicates that are neither queried nor --open are closed-world already"},
	{name: "burnMinSteps", value: true, why: "the burn-in is a fixed number of samples: use -burnMaxSteps or --burn-in"},
	{name: "minSteps", value: true, why: "the number of samples is fixed: use -maxSteps or --samples"},
	{name: "maxSeconds", value: true, why: "sampling runs a fixed number of samples: use -maxSteps or --samples"},
	{name: "tries", value: true, why: "MaxWalkSAT makes one try of --flips flips"},
	{name: "memLimit", value: true, why: "use --memory-limit"},
	{name: "bp", why: "belief propagation is not implemented: use -ms (MC-SAT) or -p (Gibbs)"},
	{name: "simtp", why: "simulated tempering is not implemented: use -ms (MC-SAT) or -p (Gibbs)"},
	{name: "lifted", why: "lifted belief propagation is not implemented"},
	{name: "queryEvidence", why: "not implemented"},
	{name: "outputNetwork", why: "not implemented"},
	{name: "counts", why: "not implemented"},

	// Tuffy 0.3's options (tuffy.parse.CommandOptions) that Alchemy's
	// do not already cover. Tuffy's -o (its output file) is not among
	// them: -o is --open, as in Alchemy's first infer, and an -o naming
	// no predicate is refused pointing to -r.
	{name: "mln", value: true, to: []string{"--input"}, tuffy: true},
	{name: "evidence", value: true, to: []string{"--evidence"}, tuffy: true},
	{name: "query", value: true, to: []string{"--query"}, tuffy: true},
	{name: "queryFile", value: true, to: []string{"--query-file"}, tuffy: true},
	{name: "result", value: true, to: []string{"--result"}, tuffy: true},
	{name: "marginal", to: []string{"--marginal"}, tuffy: true},
	{name: "mcsatSamples", value: true, to: []string{"--samples"}, tuffy: true},
	{name: "maxFlips", value: true, to: []string{"--flips"}, tuffy: true},
	{name: "threads", value: true, to: []string{"--threads"}, tuffy: true},
	{name: "closedWorld", value: true, why: "predicates that are neither queried nor --open are closed-world already", tuffy: true},
	{name: "nopart", note: "the network is not partitioned into components", tuffy: true},
	{name: "activateAll", note: "every unknown atom is grounded, unless --lazy", tuffy: true},
	{name: "keepData", note: "hinge keeps no database", tuffy: true},
	{name: "verbose", value: true, note: "progress goes to standard error; --quiet silences it", tuffy: true},
	{name: "maxTries", value: true, why: "MaxWalkSAT makes one try of --flips flips", tuffy: true},
	{name: "dual", why: "run once for the MAP world and once with --marginal", tuffy: true},
	{name: "mcsatParam", value: true, why: "MC-SAT keeps a satisfied clause of weight w with probability 1 - exp(-|w|), as Alchemy does", tuffy: true},
	{name: "randomStep", value: true, why: "MaxWalkSAT's random-step probability is not a setting here", tuffy: true},
	{name: "dontBreak", why: "not implemented", tuffy: true},
	{name: "minProb", value: true, why: "every query atom is listed with its probability: filter the result file", tuffy: true},
	{name: "dribble", value: true, why: "the log goes to standard error: redirect it (2> FILE)", tuffy: true},
	{name: "timeout", value: true, why: "not implemented: Ctrl-C (SIGINT) or SIGTERM stops a run", tuffy: true},
	{name: "learnwt", why: "weight learning is `hinge mln learn` (-i, -t, -o, and -d for discriminative learning)", tuffy: true},
	{name: "mle", why: "not implemented", tuffy: true},
	{name: "conf", value: true, why: "hinge grounds in memory and needs no database configuration", tuffy: true},
	{name: "db", value: true, why: "the evidence is read from .db files (-e)", tuffy: true},
	{name: "gz", why: "not implemented: compress the result file afterwards", tuffy: true},
	{name: "printResultsAsPrologFacts", why: "not implemented", tuffy: true},
	{name: "lineHeader", value: true, why: "not implemented", tuffy: true},
}

// learnwtsArgs are Alchemy's learnwts options that differ from hinge mln
// learn's flags; -i, -o and -t mean the same in both.
var learnwtsArgs = []alchemyOption{
	{name: "g", to: []string{"--method", "pll"}},
	{name: "d", to: []string{"--method", "dn"}},
	{name: "ne", value: true, to: []string{"--query"}},
	{name: "priorStdDev", value: true, to: []string{"--prior-stddev"}},
	{name: "noPrior", to: []string{"--prior-stddev", "-1"}},
	{name: "gMaxIter", value: true, to: []string{"--max-iter"}},
	{name: "dNumIter", value: true, to: []string{"--iterations"}},
	{name: "gNoEqualPredWt", optional: true, to: []string{"--atom-weights"}},
	{name: "seed", value: true, to: []string{"--seed"}},
	{name: "noAddUnitClauses", note: "hinge never adds unit clauses"},
	{name: "multipleDatabases", why: "the training databases form one world"},
	{name: "withEM", why: "atoms the training database does not list are false"},
	{name: "infer", value: true, why: "dn samples with MC-SAT: use --samples and --chains"},
	{name: "gConvThresh", value: true, why: "L-BFGS stops when the gradient or the progress vanishes, or at --max-iter"},
	{name: "priorMean", value: true, why: "the prior is centred on the program's weights"},
	{name: "queryEvidence", why: "atoms of the query predicates that the database does not list are false already"},
	{name: "dLearningRate", value: true, why: "dn is diagonal Newton, which sets its own steps"},
	{name: "dMomentum", value: true, why: "dn is diagonal Newton, which sets its own steps"},
	{name: "dRescale", why: "not implemented"},
	{name: "dZeroInit", why: "dn starts from 0"},
	{name: "cw", value: true, why: "predicates other than the query predicates are closed-world already"},
	{name: "ow", value: true, why: "the training world is complete: every predicate is closed-world"},
}

// addAlchemyHelp appends to cmd's help the translations of its Alchemy
// options (after every flag is registered: a translation whose flag the
// command lacks is listed among the refused options).
func addAlchemyHelp(cmd *cobra.Command, opts []alchemyOption) {
	var b strings.Builder
	whose := "Alchemy's"
	if slices.ContainsFunc(opts, func(o alchemyOption) bool { return o.tuffy }) {
		whose = "Alchemy's and Tuffy's"
	}
	fmt.Fprintf(&b, "\n\n%s options are accepted as their users type them (translated\nbefore the flags are read):\n", whose)
	var none []string
	for _, o := range opts {
		name := "-" + o.name
		if o.value {
			name += " V"
		}
		switch {
		case o.why != "" || len(o.to) > 0 && cmd.Flags().Lookup(strings.TrimPrefix(o.to[0], "--")) == nil:
			none = append(none, "-"+o.name)
		case len(o.to) == 0:
			fmt.Fprintf(&b, "  %-18s accepted (%s)\n", name, o.note)
		default:
			to := strings.Join(o.to, " ")
			if o.value {
				to = o.to[0] + " V " + strings.Join(o.to[1:], " ")
			}
			fmt.Fprintf(&b, "  %-18s %s\n", name, strings.TrimSpace(to))
		}
	}
	if len(none) == 0 {
		cmd.Long += strings.TrimSuffix(b.String(), "\n")
		return
	}
	// The refused ones, wrapped at 78 columns.
	line := whose
	for k, n := range none {
		word := " " + n
		if k < len(none)-1 {
			word += ","
		}
		if len(line)+len(word) > 78 {
			b.WriteString(line + "\n")
			line = strings.TrimPrefix(word, " ")
		} else {
			line += word
		}
	}
	b.WriteString(line + " have no counterpart here and are refused with the reason.")
	cmd.Long += b.String()
}

// alchemyTables maps a command path to its Alchemy options.
var alchemyTables = map[string][]alchemyOption{
	"hinge mln infer": inferArgs,
	"hinge mln learn": learnwtsArgs,
}

// alchemyArgs prepares a command line typed as Alchemy users type it.
// hinge learnwts ..., and hinge infer or hinge learn given a Markov logic
// program (.mln) or Alchemy's options, are answered with the hinge mln
// command that does it; the Alchemy options of hinge mln infer and hinge
// mln learn are translated into their flags. Arguments after "--" are never
// touched.
func alchemyArgs(root *cobra.Command, args []string) ([]string, error) {
	if len(args) == 0 {
		return args, nil
	}
	if err := alchemyProgram(root, args); err != nil {
		return nil, err
	}
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		return args, nil
	}
	table := alchemyTables[cmd.CommandPath()]
	if table == nil {
		return args, nil
	}
	out := make([]string, 0, len(args))
	// A flag that two options set to different values (Alchemy's -ms and
	// -p, -g and -d, or one of them and the hinge flag it becomes) is
	// refused rather than the last one winning.
	type setting struct{ by, val string }
	set := map[string]setting{}
	translated := map[string]bool{}
	for _, o := range table {
		if len(o.to) > 0 {
			translated[o.to[0]] = true
		}
	}
	sets := func(flag, by, val string) error {
		if f := cmd.Flags().Lookup(strings.TrimPrefix(flag, "--")); f != nil && (strings.HasSuffix(f.Value.Type(), "Slice") || strings.HasSuffix(f.Value.Type(), "Array")) {
			return nil // repeatable: each one adds
		}
		if prev, ok := set[flag]; ok && prev.val != val {
			return badInput(fmt.Errorf("%s and %s ask for different %s (%s and %s): give one", prev.by, by, flag, prev.val, val))
		}
		set[flag] = setting{by, val}
		return nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		if strings.HasPrefix(a, "--") {
			if name, val, hasVal := strings.Cut(a, "="); translated[name] {
				f := cmd.Flags().Lookup(strings.TrimPrefix(name, "--"))
				switch {
				case hasVal:
				case f != nil && f.Value.Type() == "bool":
					val = "true"
				case i+1 < len(args):
					val = args[i+1]
				}
				if err := sets(name, name, val); err != nil {
					return nil, err
				}
			}
		}
		if len(a) < 2 || a[0] != '-' || a[1] == '-' {
			out = append(out, a)
			continue
		}
		name, val, hasVal := strings.Cut(a[1:], "=")
		k := slices.IndexFunc(table, func(o alchemyOption) bool { return o.name == name })
		if k < 0 {
			out = append(out, a)
			continue
		}
		o := table[k]
		if o.why != "" {
			return nil, badInput(fmt.Errorf("%s option -%s has no counterpart in %s: %s", o.owner(), o.name, cmd.CommandPath(), o.why))
		}
		if len(o.to) > 0 && cmd.Flags().Lookup(strings.TrimPrefix(o.to[0], "--")) == nil {
			return nil, badInput(fmt.Errorf("%s option -%s (%s) is not available in %s", o.owner(), o.name, o.to[0], cmd.CommandPath()))
		}
		switch {
		case o.value && !hasVal:
			if i+1 >= len(args) {
				return nil, badInput(fmt.Errorf("%s option -%s needs a value", o.owner(), o.name))
			}
			i++
			val, hasVal = args[i], true
		case o.optional && !hasVal && i+1 < len(args) && isBoolWord(args[i+1]):
			i++
			val, hasVal = args[i], true
		case !o.value && !o.optional && hasVal:
			return nil, badInput(fmt.Errorf("%s option -%s takes no value", o.owner(), o.name))
		}
		if len(o.to) > 0 {
			v := val
			switch {
			case len(o.to) > 1 && !o.value && !strings.HasPrefix(o.to[1], "--"):
				v = o.to[1]
			case !hasVal:
				v = "true"
			}
			if err := sets(o.to[0], "-"+o.name, v); err != nil {
				return nil, err
			}
		}
		switch {
		case len(o.to) == 0: // accepted, changes nothing
		case o.optional && hasVal:
			out = append(out, o.to[0]+"="+val)
		case o.value:
			out = append(out, o.to[0]+"="+val)
			out = append(out, o.to[1:]...)
		default:
			out = append(out, o.to...)
		}
	}
	return out, nil
}

func isBoolWord(s string) bool {
	switch strings.ToLower(s) {
	case "true", "false", "1", "0":
		return true
	}
	return false
}

// alchemyProgram answers a command line of Alchemy's programs (learnwts,
// or infer / learn given a .mln program or Alchemy's options) with the
// hinge mln command that runs it. A command line written with the PSL
// commands' flags (-m/--model, -d/--data) is translated into hinge mln's
// (mlnArgs), so that the command suggested parses and runs once its
// placeholders are filled.
func alchemyProgram(root *cobra.Command, args []string) error {
	rest := args[1:]
	if k := slices.Index(rest, "--"); k >= 0 {
		rest = rest[:k]
	}
	has := func(words ...string) bool {
		for _, a := range rest {
			if slices.Contains(words, a) || strings.EqualFold(filepath.Ext(a), ".mln") {
				return true
			}
		}
		return false
	}
	var to string
	switch {
	case args[0] == "learnwts":
		to = "hinge mln learn"
	case args[0] == "infer" && has("-i", "-e", "-r", "-q", "-f", "-ms", "-mwsMaxSteps", "-maxSteps", "-mln", "-evidence", "-queryFile", "-marginal", "-mcsatSamples", "-result"):
		to = "hinge mln infer"
	case args[0] == "learn" && has("-i", "-t", "-ne", "-g"):
		to = "hinge mln learn"
	default:
		return nil
	}
	words, notes := args[1:], ""
	// A command line in Alchemy's or Tuffy's words runs as it is under the
	// hinge mln command, which translates them; one in the PSL commands'
	// words is translated here.
	src, _, _ := root.Find(args[:1])
	native := slices.Contains(rest, "-i") || slices.ContainsFunc(rest, func(a string) bool { return isPeerOption(a, alchemyTables[to], src) })
	if args[0] != "learnwts" && !native {
		words, notes = mlnArgs(root, args[0], to, args[1:])
	}
	if to == "hinge mln infer" && alchemyDefaultsToMCSAT(rest) {
		// Alchemy's infer samples marginals by MC-SAT unless -m or -a
		// asks for the MAP world; hinge mln infer answers the MAP world
		// by default (as Tuffy does): the command suggested keeps
		// Alchemy's meaning.
		words = append(slices.Clone(words), "-ms")
		notes += " (-ms added: Alchemy's infer samples marginals by MC-SAT unless -m or -a asks for the MAP world, which is what hinge mln infer answers without it)"
	}
	cmdline := to + " " + strings.Join(quoteArgs(words), " ")
	if args[0] == "learnwts" {
		return badInput(fmt.Errorf("Alchemy's learnwts is `hinge mln learn` (it takes Alchemy's options): did you mean `%s`?", cmdline))
	}
	return badInput(fmt.Errorf("hinge %s is for PSL models; a Markov logic network (.mln) runs with `%s` (it takes Alchemy's options): did you mean `%s`?%s", args[0], to, cmdline, notes))
}

// alchemyDefaultsToMCSAT reports whether an infer command line is in
// Alchemy's words (-i, -e, -r, -q; not Tuffy's -mln, -evidence,
// -queryFile, -result, whose default is the MAP world as hinge's) and
// chooses no inference mode, so that Alchemy would run MC-SAT.
func alchemyDefaultsToMCSAT(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "-m", "-a", "-ms", "-p", "-bp", "-efbp", "-simtp", "--map", "--marginal", "--method", "-marginal", "-mln", "-evidence", "-queryFile", "-result":
			return false
		}
	}
	return true
}

// isPeerOption reports whether a is one of Alchemy's or Tuffy's options in
// table (-ms, -queryFile) and not a flag of src, the PSL command it was
// given to (Alchemy's -m and -d are also the PSL commands' own -m and -d).
func isPeerOption(a string, table []alchemyOption, src *cobra.Command) bool {
	if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
		return false
	}
	name, _, _ := strings.Cut(a[1:], "=")
	if src != nil && (src.Flags().Lookup(name) != nil || len(name) == 1 && src.Flags().ShorthandLookup(name) != nil) {
		return false
	}
	return slices.ContainsFunc(table, func(o alchemyOption) bool { return o.name == name })
}

// mlnArgs translates the arguments of hinge infer or hinge learn (from),
// written with the PSL flags, into those of the hinge mln command to: the
// model (-m, --model, or a .mln argument) becomes -i, the data (-d, --data,
// --config, or a .db argument) the evidence (-e) or training database (-t),
// a flag that to has by the same name stays, and the others are left out.
// A PSL data file is not Alchemy evidence and infer needs the query
// predicates: those become the placeholders EVIDENCE.db, TRAIN.db and
// QUERY. notes says what was replaced or left out.
func mlnArgs(root *cobra.Command, from, to string, args []string) ([]string, string) {
	src, _, err1 := root.Find([]string{from})
	dst, _, err2 := root.Find(strings.Fields(to)[1:])
	if err1 != nil || err2 != nil {
		return args, ""
	}
	dataFlag, dataHolder := "-e", "EVIDENCE.db"
	if from == "learn" {
		dataFlag, dataHolder = "-t", "TRAIN.db"
	}
	var out, notes, dropped []string
	data := func(v string) {
		if strings.EqualFold(filepath.Ext(v), ".db") {
			out = append(out, dataFlag, v)
			return
		}
		out = append(out, dataFlag, dataHolder)
		notes = append(notes, fmt.Sprintf("%s: an Alchemy database (.db) in place of the PSL data %s", dataHolder, v))
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			switch strings.ToLower(filepath.Ext(a)) {
			case ".mln":
				out = append(out, "-i", a)
			case ".db":
				out = append(out, dataFlag, a)
			default:
				dropped = append(dropped, a)
			}
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := src.Flags().Lookup(name)
		if f == nil && len(name) == 1 && a[1] != '-' {
			f = src.Flags().ShorthandLookup(name)
		}
		if f == nil {
			out = append(out, a) // unknown to both: reported as it is
			continue
		}
		if !hasVal && f.Value.Type() != "bool" && i+1 < len(args) {
			i++
			val, hasVal = args[i], true
		}
		switch {
		case f.Name == "model" && hasVal:
			out = append(out, "-i", val)
		case (f.Name == "data" || f.Name == "config") && hasVal:
			data(val)
		case dst.Flags().Lookup(f.Name) != nil:
			if hasVal {
				out = append(out, "--"+f.Name+"="+val)
			} else {
				out = append(out, "--"+f.Name)
			}
		default:
			dropped = append(dropped, "--"+f.Name)
		}
	}
	if from == "infer" {
		out = append(out, "-q", "QUERY")
		notes = append([]string{"QUERY: the predicates to infer"}, notes...)
	}
	if len(dropped) > 0 {
		notes = append(notes, fmt.Sprintf("%s left out: no counterpart in %s", strings.Join(dropped, ", "), to))
	}
	if len(notes) == 0 {
		return out, ""
	}
	return out, " (" + strings.Join(notes, "; ") + ")"
}

// quoteArgs quotes the arguments that a shell would split.
func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n'\"$`\\*?[]{}()<>|&;#~") {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return out
}

// checkProgram refuses a program with no formulas: nothing to infer or
// learn, and most likely an evidence file given as the program.
func checkProgram(path string, prog *mln.Program) error {
	if len(prog.Formulas) > 0 {
		return nil
	}
	return badInput(errors.New(noFormulas(path, len(prog.Preds))))
}

// noFormulas says that the file at path holds no formulas.
func noFormulas(path string, preds int) string {
	return fmt.Sprintf("%s: the program has no formulas (it declares %d predicate(s)): nothing to infer or learn; is it an evidence file given as the program (-i)?", clipPath(path), preds)
}
