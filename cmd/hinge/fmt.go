package main

import (
	"encoding/json"
	"io"

	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/syntax"
	"github.com/spf13/cobra"
)

type fmtOptions struct {
	json bool
}

func newFmtCmd() *cobra.Command {
	o := &fmtOptions{}
	cmd := &cobra.Command{
		Use:   "fmt FILE.psl [--json]",
		Short: "Read a PSL rule file as hinge reads it and print its rules, one a line",
		Long: `Read FILE.psl with hinge's PSL parser, without data: comments are skipped,
a rule may span lines (boundaries come from the grammar, as in PSL), and every
syntax error is reported with its line and column (exit status 2). The rules
are printed one a line in hinge's canonical form, as hinge learn and hinge
structure write them, each after the comment lines before it (a comment at
the end of a line is dropped); --json prints a JSON array instead,
one object per rule with the line and column where it starts and its text
(how the Python package's Rule.load_from_file reads a .psl file).

Predicates are not checked against any data here: hinge infer does that.`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(args[0], cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print a JSON array of {line, col, rule} instead of the rules")
	return cmd
}

// fmtRule is one rule of hinge fmt --json.
type fmtRule struct {
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Rule string `json:"rule"`
}

func (o *fmtOptions) run(path string, stdout io.Writer) error {
	src, err := textfile.ReadFile(path)
	if err != nil {
		return badInput(err)
	}
	rules, err := syntax.ParseFile(path, src)
	if err != nil {
		return badInput(err)
	}
	if !o.json {
		return failedIf(syntax.Print(stdout, rules))
	}
	out := make([]fmtRule, len(rules))
	for i, r := range rules {
		out[i] = fmtRule{Line: r.Pos.Line, Col: r.Pos.Col, Rule: syntax.Format(r)}
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false) // "->" as written
	enc.SetIndent("", "  ")
	return failedIf(enc.Encode(out))
}
