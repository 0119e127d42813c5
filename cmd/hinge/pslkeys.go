package main

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/config"
	"github.com/hinge-srl/hinge/eval"
)

// pslKey is a PSL configuration key (PSL's -D key=value, psl_config of
// pslpython) and what hinge makes of it.
type pslKey struct {
	flag string // the hinge flag that does the same, given the value
	// learn: the key sets weight learning (ignored by infer, as PSL
	// ignores the keys of a step it does not run).
	learn bool
}

// pslKeys are PSL 2.3's configuration keys that have a hinge flag.
// admm.* is PSL 3's spelling of admmreasoner.*.
var pslKeys = func() map[string]pslKey {
	m := map[string]pslKey{
		"random.seed":                      {flag: "--seed"},
		"parallel.numthreads":              {flag: "--threads"},
		"votedperceptron.numsteps":         {flag: "--iterations", learn: true},
		"votedperceptron.stepsize":         {flag: "--step-size", learn: true},
		"votedperceptron.l2regularization": {flag: "--l2", learn: true},
	}
	for k, f := range map[string]string{"maxiterations": "--max-iter", "stepsize": "--rho", "epsilonabs": "--eps-abs",
		"epsilonrel": "--eps-rel", "computeperiod": "--check-every"} {
		m["admmreasoner."+k] = pslKey{flag: f}
		m["admm."+k] = pslKey{flag: f}
	}
	return m
}()

// pslQuietKeys only set PSL's logging, statistics or Java database
// details, or (inference.normalize, PSL 3) whether inference divides every
// weight by the largest, which scales the objective and moves no optimum:
// they change no result, and hinge has nothing to set for them.
var pslQuietKeys = []string{"log4j.threshold", "runtime.log.level", "runtimestats.collect", "runtimestats.period",
	"rdbmsdatabase.fetchsize", "runtime.db.intids", "persistedatommanager.throwaccessexception", "inference.normalize"}

// pslEvaluatorKey is an evaluator's option (discreteevaluator.threshold),
// which --eval-option takes as it is.
var pslEvaluatorKey = regexp.MustCompile(`^[a-z]*evaluator\.[a-z0-9_.]+$`)

// pslDefineCommands are the commands that take PSL's -D key=value.
var pslDefineCommands = []string{"hinge infer", "hinge learn", "hinge ground"}

// pslDefines translates PSL's -D key=value (and -Dkey=value) in the
// command lines of hinge infer, learn and ground into hinge's flags, before
// the flags are read: a key with a hinge counterpart becomes its flag, a
// key that changes no result (logging) is dropped, a key hinge reads that
// sets something the command does not do (a learning key on infer, the
// seed or the solver on ground) is dropped with a note, returned for the
// caller to print, and any other key is refused naming the ones hinge
// reads. Arguments after "--" are never touched.
func pslDefines(root *cobra.Command, args []string) (out, notes []string, err error) {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil || !slices.Contains(pslDefineCommands, cmd.CommandPath()) {
		return args, nil, nil
	}
	out = make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		var def string
		switch {
		case i > 0 && takesValue(cmd, args[i-1]):
			out = append(out, a) // the value of the flag before it (--output -Dx)
			continue
		case a == "-D" || a == "--D":
			if i+1 >= len(args) {
				return nil, nil, badInput(fmt.Errorf("PSL's -D needs key=value"))
			}
			i++
			def = args[i]
		case strings.HasPrefix(a, "-D") && !strings.HasPrefix(a, "--"):
			def = a[2:]
		default:
			out = append(out, a)
			continue
		}
		flags, err := pslDefine(cmd, def)
		var nh *notHereError
		if errors.As(err, &nh) {
			notes = append(notes, fmt.Sprintf("%s: note: PSL's -D %s is ignored: %s", cmd.CommandPath(), strings.TrimSpace(def), nh.reason))
			continue
		}
		if err != nil {
			return nil, nil, badInput(err)
		}
		out = append(out, flags...)
	}
	return out, notes, nil
}

// takesValue reports whether arg is a flag of cmd that takes the next
// argument as its value (--output FILE, -m FILE; not --flag=value, not a
// boolean flag).
func takesValue(cmd *cobra.Command, arg string) bool {
	if !strings.HasPrefix(arg, "-") || strings.Contains(arg, "=") || arg == "-D" || arg == "--D" {
		return false
	}
	name := strings.TrimLeft(arg, "-")
	f := cmd.Flags().Lookup(name)
	if f == nil && len(name) == 1 {
		f = cmd.Flags().ShorthandLookup(name)
	}
	return f != nil && f.Value.Type() != "bool"
}

// pslDefine is the hinge flags for one PSL key=value of cmd.
func pslDefine(cmd *cobra.Command, def string) ([]string, error) {
	key, val, ok := strings.Cut(def, "=")
	key = strings.ToLower(strings.TrimSpace(key))
	if !ok || key == "" {
		return nil, fmt.Errorf("PSL's -D %q: want key=value", def)
	}
	val = strings.TrimSpace(val)
	if val == "" {
		return nil, fmt.Errorf("PSL's -D %s=: no value", key)
	}
	flags, err := pslSetting(cmd, key, val)
	var nh *notHereError
	if err != nil && !errors.As(err, &nh) {
		return nil, fmt.Errorf("PSL's -D %w", err)
	}
	return flags, err
}

// notHereError is pslSetting's answer for a key that hinge reads but that
// sets something the command does not do (random.seed on hinge ground,
// votedperceptron.* on hinge infer): the key is ignored, as PSL ignores
// the keys of a step it does not run; -D says so in a note, a config,
// which serves every command, says nothing.
type notHereError struct {
	key    string
	reason string // why the command has no use for it
}

func (e *notHereError) Error() string { return e.key + ": ignored: " + e.reason }

// notHere is the notHereError of key on cmd: the step the key sets
// (weight learning, the evaluation, ...), which cmd does not run, and the
// flag it would set, which cmd lacks ("" when cmd has it for another use).
func notHere(cmd *cobra.Command, key, step, flag string) error {
	reason := "it sets " + step + ", which " + cmd.CommandPath() + " does not run"
	if flag != "" {
		reason += " (it has no " + flag + ")"
	}
	return &notHereError{key: key, reason: reason}
}

// pslKeyStep names the step a key of pslKeys sets, for the notes of
// commands that do not run it.
func pslKeyStep(key string) string {
	switch {
	case strings.HasPrefix(key, "votedperceptron."):
		return "weight learning"
	case key == "random.seed":
		return "the seed of inference's random choices"
	case key == "parallel.numthreads":
		return "inference's threads"
	}
	return "the ADMM solver"
}

// pslSetting is the hinge flags for PSL's key (lower case) set to val (not
// empty) on cmd, as -D key=val and a JSON config's options say it. Its
// errors begin with the key, for the caller to say where it was given.
func pslSetting(cmd *cobra.Command, key, val string) ([]string, error) {
	infer := cmd.Name() == "infer"
	switch k, known := pslKeys[key]; {
	case known:
		if k.learn && (infer || cmd.Name() == "structure") {
			// Weight learning's key where PSL's learner does not run:
			// infer ignores it as PSL does, and structure's --iterations
			// and --l2 are its own learner's.
			return nil, notHere(cmd, key, pslKeyStep(key), "")
		}
		if cmd.Flags().Lookup(strings.TrimPrefix(k.flag, "--")) == nil {
			return nil, notHere(cmd, key, pslKeyStep(key), k.flag)
		}
		return []string{k.flag + "=" + val}, nil
	case slices.Contains(pslQuietKeys, key):
		return nil, nil
	case key == "inference.reasoner" || key == "reasoner.type":
		if !infer {
			// Inference's reasoner: learn keeps its ADMM, as PSL does,
			// and ground solves nothing.
			if cmd.Name() == "learn" {
				return nil, &notHereError{key: key, reason: "it sets inference's solver; " + cmd.CommandPath() + " infers by ADMM while learning, as PSL's weight learning does"}
			}
			return nil, notHere(cmd, key, "inference's solver", "")
		}
		name := strings.ToLower(val[strings.LastIndexByte(val, '.')+1:])
		switch name {
		case "admmreasoner", "admm":
			return nil, nil
		case "dcdreasoner", "dcd", "dcdstreaminginference":
			if cmd.Flags().Lookup("streaming") == nil {
				return nil, notHere(cmd, key, "inference's solver", "--streaming")
			}
			return []string{"--streaming"}, nil
		}
		if strings.HasPrefix(name, "sgd") {
			return nil, fmt.Errorf("%s=%s: hinge has no SGD solver for PSL; its reasoners are ADMMReasoner (the default) and DCDReasoner (--streaming, dual coordinate descent)", key, val)
		}
		return nil, fmt.Errorf("%s=%s: hinge has ADMMReasoner (the default) and DCDReasoner (--streaming)", key, val)
	case key == "eval.includeobs" || key == "eval.closetruth" || pslEvaluatorKey.MatchString(key):
		if !infer {
			return nil, notHere(cmd, key, "the evaluation", "")
		}
		if key == "eval.includeobs" {
			return []string{"--include-observed=" + val}, nil
		}
		return []string{"--eval-option=" + key + "=" + val}, nil
	}
	return nil, fmt.Errorf("%s: hinge has no such setting; it reads admmreasoner.* (maxiterations, stepsize, epsilonabs, epsilonrel, computeperiod), random.seed, parallel.numthreads, votedperceptron.* (numsteps, stepsize, l2regularization), eval.includeobs, eval.closetruth, evaluator options (discreteevaluator.threshold) and inference.reasoner, and ignores logging keys (log4j.threshold); its own flags are listed by --help", key)
}

// applyConfigOptions gives the options of f's JSON config (its top-level
// "options", then the selected split's) the meaning PSL's -D gives the same
// keys on cmd: each becomes the hinge flag pslSetting names, unless that
// flag is on the command line (as a -D is by now), which overrides the
// config. The evaluators' options (eval.*, *evaluator.*) are left to the
// evaluation, which reads them from the config and checks them there. A key
// hinge does not read is refused as -D refuses it, naming the option's
// place in the config. A config that cannot be read is left to load, which
// says why.
func (f *programFlags) applyConfigOptions(cmd *cobra.Command) error {
	if f.config == "" {
		return nil
	}
	opts, pos, err := config.ReadJSONOptions(f.config, f.partition)
	if err != nil || len(opts) == 0 {
		return nil
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		pa, pb := pos[a], pos[b]
		return cmp.Or(cmp.Compare(pa.Line, pb.Line), cmp.Compare(pa.Col, pb.Col), strings.Compare(a, b))
	})
	for _, k := range keys {
		key, val := strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(opts[k])
		if eval.IsOption(key) {
			continue
		}
		at := cmp.Or(pos[k].String(), f.config) // file:line:col of the key
		if val == "" {
			return badInput(fmt.Errorf("%s: option %s: no value", at, key))
		}
		flags, err := pslSetting(cmd, key, val)
		var nh *notHereError
		if errors.As(err, &nh) {
			continue // another command's setting
		}
		if err != nil {
			return badInput(fmt.Errorf("%s: option %w", at, err))
		}
		for _, fl := range flags {
			name, v, ok := strings.Cut(strings.TrimPrefix(fl, "--"), "=")
			if !ok {
				v = "true" // a boolean flag given bare (--streaming)
			}
			flag := cmd.Flags().Lookup(name)
			if flag == nil || flag.Changed {
				continue
			}
			if err := cmd.Flags().Set(name, v); err != nil {
				return badInput(fmt.Errorf("%s: option %s=%s (hinge's --%s): %w", at, key, val, name, err))
			}
		}
	}
	return nil
}

// pslKeyGroups are the keys hinge reads, as the help of the commands that
// take -D lists them: a label and one key (and value) of the group, which
// pslSetting answers for the whole group.
var pslKeyGroups = []struct{ label, key, val string }{
	{"admmreasoner.* (maxiterations, stepsize, epsilonabs, epsilonrel, computeperiod; PSL 3's admm.*)", "admmreasoner.maxiterations", "1"},
	{"random.seed", "random.seed", "1"},
	{"parallel.numthreads", "parallel.numthreads", "1"},
	{"votedperceptron.* (numsteps, stepsize, l2regularization)", "votedperceptron.numsteps", "1"},
	{"eval.includeobs", "eval.includeobs", "true"},
	{"eval.closetruth", "eval.closetruth", "true"},
	{"evaluator options (discreteevaluator.threshold)", "discreteevaluator.threshold", "0.5"},
	{"inference.reasoner", "inference.reasoner", "DCDReasoner"},
}

// pslDefineHelp is the help of -D on cmd (hinge infer, learn or ground):
// the keys it reads as its flags and those it ignores, as pslSetting
// answers for cmd, so that the help cannot say otherwise than the command
// does.
func pslDefineHelp(cmd *cobra.Command) string {
	var used, ignored []string
	for _, g := range pslKeyGroups {
		_, err := pslSetting(cmd, g.key, g.val)
		var nh *notHereError
		switch {
		case errors.As(err, &nh):
			ignored = append(ignored, g.label)
		case err == nil:
			used = append(used, g.label)
		}
	}
	text := "PSL's configuration key (repeatable; -Dkey=value too), read as the hinge flag that does the same: " + strings.Join(used, ", ") + "."
	if len(ignored) > 0 {
		text += " Ignored here with a note on standard error, as the step they set is not run: " + strings.Join(ignored, ", ") + "."
	}
	text += " Logging keys (log4j.threshold) and inference.normalize change no result and are dropped; any other key is refused. A JSON config's \"options\" are read the same way, without the notes; the command line wins over them."
	const indent = "                 "
	var b strings.Builder
	b.WriteString("  -D key=value   ")
	col := len(indent)
	for i, w := range strings.Fields(text) {
		if i > 0 && col+1+len(w) > 80 {
			b.WriteString("\n" + indent)
			col = len(indent)
		} else if i > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}

// addPSLDefineHelp adds the help of -D, which is read before the flags
// and so is none of them, to cmd's usage after its flags.
func addPSLDefineHelp(cmd *cobra.Command) {
	const flags = "{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}"
	tmpl := cmd.UsageTemplate()
	if !strings.Contains(tmpl, flags) {
		panic("cobra's usage template has no flags section")
	}
	help := strings.NewReplacer("{{", "{{`{{`}}").Replace(pslDefineHelp(cmd))
	cmd.SetUsageTemplate(strings.Replace(tmpl, flags, flags+"\n\nPSL options:\n"+help, 1))
}
