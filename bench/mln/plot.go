package main

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/hinge-srl/hinge/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// plots draws uwcse.csv in the output directory (results/ with
// -update-results) as grouped bar charts, one bar per weight source in each
// test area: uwcse-aucpr.png (AUC-PR) and uwcse-cll.png (mean conditional
// log-likelihood).
func (c *config) plots() error {
	path := filepath.Join(c.out, "uwcse.csv")
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w (run -experiments uwcse first, or plot the committed results with -update-results)", err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) < 2 {
		return fmt.Errorf("%s: no rows", path)
	}
	col := func(name string) (int, error) {
		i := slices.Index(rows[0], name)
		if i < 0 {
			return 0, fmt.Errorf("%s: no column %q", path, name)
		}
		return i, nil
	}
	area, err := col("test area")
	if err != nil {
		return err
	}
	weights, err := col("weights")
	if err != nil {
		return err
	}
	var areas, sources []string
	for _, r := range rows[1:] {
		if !slices.Contains(areas, r[area]) {
			areas = append(areas, r[area])
		}
		if !slices.Contains(sources, r[weights]) {
			sources = append(sources, r[weights])
		}
	}
	for _, ch := range []struct{ column, file, title string }{
		{"AUC-PR", "uwcse-aucpr.png", "UW-CSE advisedBy, leave one area out: AUC-PR"},
		{"CLL", "uwcse-cll.png", "UW-CSE advisedBy, leave one area out: mean CLL"},
	} {
		k, err := col(ch.column)
		if err != nil {
			return err
		}
		p := plot.New()
		p.Title.Text = ch.title
		p.Y.Label.Text = ch.column
		p.X.Label.Text = "test area"
		p.Add(plotter.NewGrid())
		width := vg.Points(14)
		for s, src := range sources {
			vals := make(plotter.Values, len(areas))
			for _, r := range rows[1:] {
				if r[weights] != src {
					continue
				}
				v, err := strconv.ParseFloat(r[k], 64)
				if err != nil {
					return fmt.Errorf("%s: %s of %s, %s: %w", path, ch.column, r[area], src, err)
				}
				vals[slices.Index(areas, r[area])] = v
			}
			bars, err := plotter.NewBarChart(vals, width)
			if err != nil {
				return err
			}
			bars.Offset = vg.Length(s-(len(sources)-1)/2) * width
			if len(sources)%2 == 0 {
				bars.Offset -= width / 2
			}
			shade := uint8(60 + 160*s/max(1, len(sources)-1))
			bars.Color = color.Gray{Y: 255 - shade}
			p.Add(bars)
			p.Legend.Add(src, bars)
		}
		p.NominalX(areas...)
		// Room for the legend: above the bars, or below them when all
		// values are negative.
		if p.Y.Max > 0 {
			p.Y.Max *= 1.25
			p.Legend.Top = true
		} else {
			p.Y.Min *= 1.35
		}
		if err := atomicfile.Write(filepath.Join(c.out, ch.file), func(w io.Writer) error {
			wt, err := p.WriterTo(7*vg.Inch, 4*vg.Inch, "png")
			if err != nil {
				return err
			}
			_, err = wt.WriteTo(w)
			return err
		}); err != nil {
			return err
		}
		fmt.Fprintf(c.stderr, "  wrote %s\n", filepath.Join(c.out, ch.file))
	}
	return nil
}
