package main

import (
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/hinge-srl/hinge/internal/atomicfile"
)

// palette is a colour-blind-safe set (Okabe-Ito).
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255},   // blue
	color.RGBA{213, 94, 0, 255},    // vermillion
	color.RGBA{0, 158, 115, 255},   // green
	color.RGBA{204, 121, 167, 255}, // purple
	color.RGBA{230, 159, 0, 255},   // orange
	color.RGBA{86, 180, 233, 255},  // sky blue
	color.RGBA{0, 0, 0, 255},       // black
}

// series is one named line or bar set.
type series struct {
	Name   string
	X, Y   []float64
	Dashed bool
}

// barChart groups bars by category: one bar per series in each group.
func barChart(title, ylabel string, groups []string, ss []series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	w := vg.Points(float64(60) / float64(len(ss)))
	for i, s := range ss {
		bars, err := plotter.NewBarChart(plotter.Values(s.Y), w)
		if err != nil {
			return nil, fmt.Errorf("bar chart %q: %w", s.Name, err)
		}
		bars.LineStyle.Width = 0
		bars.Color = palette[i%len(palette)]
		bars.Offset = w * vg.Length(float64(i)-float64(len(ss)-1)/2)
		p.Add(bars)
		p.Legend.Add(s.Name, bars)
	}
	p.NominalX(groups...)
	p.Add(plotter.NewGrid())
	// Headroom for the legend above the tallest bar.
	top := 0.0
	for _, s := range ss {
		for _, y := range s.Y {
			top = max(top, y)
		}
	}
	p.Y.Min, p.Y.Max = 0, 1.25*top
	return p, nil
}

// lineChart draws each series as a line with points.
func lineChart(title, xlabel, ylabel string, ss []series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	for i, s := range ss {
		xy := make(plotter.XYs, len(s.X))
		for j := range s.X {
			xy[j] = plotter.XY{X: s.X[j], Y: s.Y[j]}
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, fmt.Errorf("line %q: %w", s.Name, err)
		}
		col := palette[i%len(palette)]
		l.Color, pts.Color = col, col
		l.Width = vg.Points(1.5)
		if s.Dashed {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		pts.Shape = shapes[i%len(shapes)]
		p.Add(l, pts)
		p.Legend.Add(s.Name, l, pts)
	}
	return p, nil
}

var shapes = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.BoxGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{},
	draw.RingGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{},
}

// savePNG lays plots out side by side (each w x h) and writes one PNG
// atomically.
func savePNG(path string, w, h vg.Length, plots ...*plot.Plot) error {
	img := vgimg.New(w*vg.Length(len(plots)), h)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	row := [][]*plot.Plot{plots}
	canvases := plot.Align(row, tiles, dc)
	for i, p := range plots {
		p.Draw(canvases[0][i])
	}
	return atomicfile.Write(path, func(out io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(out)
		return err
	})
}
