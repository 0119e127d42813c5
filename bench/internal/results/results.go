// Package results writes the benchmark programs' tables: CSV files written
// atomically, and Markdown tables for the terminal and the READMEs.
package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"

	"github.com/hinge-srl/hinge/internal/atomicfile"
)

// WriteCSV writes rows (the first is the header) to path, atomically.
func WriteCSV(path string, rows [][]string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.WriteAll(rows)
		return cw.Error()
	})
}

// Markdown prints rows (the first is the header) as a Markdown table,
// followed by a blank line.
func Markdown(w io.Writer, rows [][]string) {
	for i, r := range rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
		if i == 0 {
			fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(r)))
		}
	}
	fmt.Fprintln(w)
}
