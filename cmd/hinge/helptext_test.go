package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpHistory matches words about how the project's work was planned (the
// tracker's issues, the numbered files of its paper collection, a work
// session), which --help must not use: it cites papers by authors and title
// and says what the command does.
var helpHistory = regexp.MustCompile(`(?i)\bpapers? 0\d\d\b|\bissues? #?\d+|\bthe issue(?:'s)?\b|\bthis session\b|\bthe brief(?:'s)?\b`)

// commandPath returns the command's path without the root's name
// ("mln infer").
func commandPath(c *cobra.Command) string {
	return strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), c.Root().Name()), " ")
}

// walkCommands calls f for every command under root, root included.
func walkCommands(root *cobra.Command, f func(*cobra.Command)) {
	f(root)
	for _, c := range root.Commands() {
		walkCommands(c, f)
	}
}

// TestHelpTexts checks what --help says: no words about the project's own
// history anywhere, and the flags whose descriptions were once untrue say
// what the commands do.
func TestHelpTexts(t *testing.T) {
	usage := map[string]map[string]string{} // command path -> flag -> usage
	n := 0
	walkCommands(newRoot(), func(c *cobra.Command) {
		n++
		path := commandPath(c)
		for _, s := range []string{c.Short, c.Long, c.Example, c.Use} {
			if m := helpHistory.FindString(s); m != "" {
				t.Errorf("hinge %s --help: %q in %q", path, m, s)
			}
		}
		usage[path] = map[string]string{}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			usage[path][f.Name] = f.Usage
			if m := helpHistory.FindString(f.Usage); m != "" {
				t.Errorf("hinge %s --%s: %q in %q", path, f.Name, m, f.Usage)
			}
		})
	})
	if n < 10 {
		t.Fatalf("only %d commands found", n)
	}
	for _, tc := range []struct {
		cmd, flag string
		want      []string // substrings the usage must hold
		not       []string // and must not
	}{
		// hinge rrf infer reads a .rrf file as well as a .mln one.
		{"rrf infer", "input", []string{".rrf", ".mln"}, nil},
		{"rrf learn", "input", []string{".rrf", ".mln"}, nil},
		// ADMM's values depend on the thread count by rounding (workers
		// sum their shares of the local steps in groups that depend on
		// their number: admm.TestThreadsAgree); grounding and structure
		// learning give the same result for any count.
		{"infer", "threads", []string{"rounding"}, []string{"not depend"}},
		{"solve", "threads", []string{"rounding"}, []string{"not depend"}},
		{"learn", "threads", []string{"rounding"}, []string{"not depend"}},
		// The rules file's first column is the number of body groundings
		// (kgc.Rule.BodySize), not the number of body atoms.
		{"kgc", "rules", []string{"body groundings"}, []string{"body size"}},
	} {
		u, ok := usage[tc.cmd][tc.flag]
		if !ok {
			t.Errorf("hinge %s has no --%s", tc.cmd, tc.flag)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(u, w) {
				t.Errorf("hinge %s --%s: %q does not say %q", tc.cmd, tc.flag, u, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(u, w) {
				t.Errorf("hinge %s --%s: %q says %q", tc.cmd, tc.flag, u, w)
			}
		}
	}
}
