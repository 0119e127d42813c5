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

// pslDefines translates PSL's -D key=value (and -Dkey=value) in the
// command lines of hinge infer, learn and ground into hinge's flags, before
// the flags are read: a key with a hinge counterpart becomes its flag, a
// key that changes no result (logging) is dropped, a learning key is
// dropped by infer, and any other key is refused naming the ones hinge
// reads. Arguments after "--" are never touched.
func pslDefines(root *cobra.Command, args []string) ([]string, error) {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil || !slices.Contains([]string{"hinge infer", "hinge learn", "hinge ground"}, cmd.CommandPath()) {
		return args, nil
	}
	out := make([]string, 0, len(args))
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
				return nil, badInput(fmt.Errorf("PSL's -D needs key=value"))
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
		if err != nil {
			return nil, badInput(err)
		}
		out = append(out, flags...)
	}
	return out, nil
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
	if err != nil {
		return nil, fmt.Errorf("PSL's -D %w", err)
	}
	return flags, nil
}

// notHereError is pslSetting's refusal of a key that hinge reads but the
// command has no flag for (random.seed on hinge ground): -D refuses it, a
// config, which serves every command, sets nothing by it.
type notHereError struct{ error }

func (e *notHereError) Unwrap() error { return e.error }

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
			// and --l2 are its own learner's (ground refuses it below, as
			// it has no such flag).
			return nil, nil
		}
		if cmd.Flags().Lookup(strings.TrimPrefix(k.flag, "--")) == nil {
			return nil, &notHereError{fmt.Errorf("%s: %s has no %s here", key, cmd.CommandPath(), k.flag)}
		}
		return []string{k.flag + "=" + val}, nil
	case slices.Contains(pslQuietKeys, key):
		return nil, nil
	case key == "inference.reasoner" || key == "reasoner.type":
		if !infer {
			return nil, nil // inference's reasoner: learn and ground keep theirs, as PSL does
		}
		name := strings.ToLower(val[strings.LastIndexByte(val, '.')+1:])
		switch name {
		case "admmreasoner", "admm":
			return nil, nil
		case "dcdreasoner", "dcd", "dcdstreaminginference":
			if cmd.Flags().Lookup("streaming") == nil {
				return nil, &notHereError{fmt.Errorf("%s=%s: %s has no --streaming", key, val, cmd.CommandPath())}
			}
			return []string{"--streaming"}, nil
		}
		if strings.HasPrefix(name, "sgd") {
			return nil, fmt.Errorf("%s=%s: hinge has no SGD solver for PSL; its reasoners are ADMMReasoner (the default) and DCDReasoner (--streaming, dual coordinate descent)", key, val)
		}
		return nil, fmt.Errorf("%s=%s: hinge has ADMMReasoner (the default) and DCDReasoner (--streaming)", key, val)
	case key == "eval.includeobs":
		if !infer {
			return nil, nil
		}
		return []string{"--include-observed=" + val}, nil
	case key == "eval.closetruth":
		if !infer {
			return nil, nil
		}
		return []string{"--eval-option=eval.closetruth=" + val}, nil
	case pslEvaluatorKey.MatchString(key):
		if !infer {
			return nil, nil
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
