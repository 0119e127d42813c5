package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hinge-srl/hinge/internal/suggest"
)

// This file turns a bad command line into a helpful answer: suggestions for
// misspelt commands and flags, PSL's command-line habits translated, and
// every such error typed as bad input (exit status 2).

// version describes the build: the module version (a tag when installed with
// go install MODULE@VERSION, "(devel)" in a checkout), the commit and
// whether the tree had changes, and the Go release.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown build)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified, at string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		case "vcs.time":
			at = " " + s.Value
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	switch {
	case rev != "":
		v += fmt.Sprintf(" (commit %s%s%s)", rev, at, modified)
	case v == "(devel)":
		// go run, or a build with -buildvcs=false, records no commit.
		v += " (no commit recorded: `go install -buildvcs=auto ./cmd/hinge` in a git checkout records it)"
	}
	return v + ", " + bi.GoVersion
}

// rootArgs rejects a first word that is not a command, suggesting the
// nearest commands.
func rootArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q", args[0])
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, " or "))
	}
	return badInput(fmt.Errorf("%s; run '%s --help' for the commands", msg, cmd.CommandPath()))
}

// flagError types a flag parsing error as bad input and, for an unknown
// flag, suggests the command's nearest flag.
func flagError(cmd *cobra.Command, err error) error {
	// A command with subcommands takes no flags of its own but the shared
	// ones: 'hinge infr -m x' mistyped the command, and the flag only
	// failed because the command was not found. Say that.
	if cmd.HasSubCommands() {
		if words := cmd.Flags().Args(); len(words) > 0 {
			if err := rootArgs(cmd, words); err != nil {
				return err
			}
		}
	}
	var ne *pflag.NotExistError
	if errors.As(err, &ne) && ne.GetSpecifiedShortnames() == "" {
		if near := nearestFlag(cmd, ne.GetSpecifiedName()); near != "" {
			return badInput(fmt.Errorf("%w (did you mean --%s?)", err, near))
		}
	}
	return badInput(err)
}

// nearestFlag returns the name of cmd's flag closest to name in edit
// distance, if it is close enough to be a misspelling.
func nearestFlag(cmd *cobra.Command, name string) string {
	var names []string
	visit := func(f *pflag.Flag) { names = append(names, f.Name) }
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return suggest.Nearest(name, names)
}

// longFlagsWithOneDash rewrites -model as --model (and -model=x as
// --model=x) when model is a long flag of the command being run, as Go's
// flag package and PSL's command line accept; a real shorthand (-m) is left
// alone. Arguments after "--" are never touched.
func longFlagsWithOneDash(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		cmd = root
	}
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		name, _, _ := strings.Cut(a[1:], "=")
		if len(name) > 1 && (cmd.Flags().Lookup(name) != nil || cmd.InheritedFlags().Lookup(name) != nil) {
			out[i] = "-" + a
		}
	}
	return out
}

// pslModes are PSL's command-line modes, given there as flags
// (java -jar psl-cli.jar -infer -model M.psl -data D.data).
var pslModes = map[string]string{"infer": "infer", "learn": "learn"}

// pslModeFlag answers hinge -infer ... / hinge --learn ... with the hinge
// command line that does it.
func pslModeFlag(args []string) error {
	if len(args) == 0 {
		return nil
	}
	mode, ok := pslModes[strings.TrimLeft(args[0], "-")]
	if !ok || !strings.HasPrefix(args[0], "-") {
		return nil
	}
	rest := make([]string, 0, len(args)-1)
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && len(a) > 2 {
			a = "-" + a
		}
		rest = append(rest, a)
	}
	if len(rest) == 0 {
		rest = []string{"--model", "M.psl", "--data", "D.data"}
	}
	return badInput(fmt.Errorf("the command is a word, not a flag: did you mean `hinge %s %s`?", mode, strings.Join(rest, " ")))
}

// noArgs is cobra.NoArgs for commands that read a PSL program: files given
// without flags (hinge infer M.psl D.data) get the command line that names
// them.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	// The Markov logic and RRF commands take programs and databases, the
	// PSL ones models, data files and configs.
	mln := strings.HasPrefix(cmd.CommandPath(), "hinge mln") || strings.HasPrefix(cmd.CommandPath(), "hinge rrf")
	db := "-e"
	if cmd.Name() == "learn" {
		db = "-t"
	}
	var fixed []string
	for _, a := range args {
		switch ext := strings.ToLower(filepath.Ext(a)); {
		case !mln && ext == ".psl":
			fixed = append(fixed, "--model", a)
		case !mln && ext == ".data":
			fixed = append(fixed, "--data", a)
		case !mln && ext == ".json":
			fixed = append(fixed, "--config", a)
		case mln && (ext == ".mln" || ext == ".rrf"):
			fixed = append(fixed, "-i", a)
		case mln && ext == ".db":
			fixed = append(fixed, db, a)
		default:
			use := strings.TrimSuffix(strings.TrimPrefix(cmd.UseLine(), cmd.CommandPath()+" "), " [flags]")
			return badInput(fmt.Errorf("unexpected argument %q: this command takes only flags (%s)", a, use))
		}
	}
	return badInput(fmt.Errorf("files are given by flags: did you mean `%s %s`?", cmd.CommandPath(), strings.Join(fixed, " ")))
}

// oneFile is cobra.ExactArgs(1) with the error typed as bad input.
func oneFile(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return badInput(fmt.Errorf("want exactly one input file, got %d argument(s); see '%s --help'", len(args), cmd.CommandPath()))
	}
	return nil
}
