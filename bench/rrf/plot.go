package main

import (
	"fmt"
	"image/color"
	"io"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/hinge-srl/hinge/internal/atomicfile"
)

// curve is one model's means against noise.
type curve struct {
	name     string
	dashed   bool
	noise    []float64
	auc, cll []float64
}

func (c *curve) add(noise float64, rs [][2]result, model int) {
	auc, _ := meanSD(rs, model, func(r result) float64 { return r.AUC })
	cll, _ := meanSD(rs, model, func(r result) float64 { return r.CLL })
	c.noise = append(c.noise, noise)
	c.auc = append(c.auc, auc)
	c.cll = append(c.cll, cll)
}

// Okabe-Ito colours: one per parameter value, MLN solid and RRF dashed in
// the same colour.
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255},
	color.RGBA{213, 94, 0, 255},
	color.RGBA{0, 158, 115, 255},
	color.RGBA{204, 121, 167, 255},
	color.RGBA{230, 159, 0, 255},
	color.RGBA{0, 0, 0, 255},
}

// plot writes name.png: AUC-PR and CLL against noise side by side, as the
// paper's Figure 2 plots them.
func (c *config) plot(name, title string, curves []curve) error {
	mk := func(ylabel string, y func(*curve) []float64) (*plot.Plot, error) {
		p := plot.New()
		p.Title.Text = title
		p.X.Label.Text = "noise"
		p.Y.Label.Text = ylabel
		p.Legend.Top = false
		p.Legend.Left = true
		p.Add(plotter.NewGrid())
		for i := range curves {
			cv := &curves[i]
			ys := y(cv)
			xy := make(plotter.XYs, len(cv.noise))
			for j := range xy {
				xy[j] = plotter.XY{X: cv.noise[j], Y: ys[j]}
			}
			l, pts, err := plotter.NewLinePoints(xy)
			if err != nil {
				return nil, fmt.Errorf("line %q: %w", cv.name, err)
			}
			col := palette[(i/2)%len(palette)]
			l.Color, pts.Color = col, col
			l.Width = vg.Points(1.5)
			if cv.dashed {
				l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
				pts.Shape = draw.BoxGlyph{}
			} else {
				pts.Shape = draw.CircleGlyph{}
			}
			p.Add(l, pts)
			p.Legend.Add(cv.name, l, pts)
		}
		return p, nil
	}
	pa, err := mk("AUC-PR", func(cv *curve) []float64 { return cv.auc })
	if err != nil {
		return err
	}
	pc, err := mk("CLL (mean per query atom)", func(cv *curve) []float64 { return cv.cll })
	if err != nil {
		return err
	}
	return savePNG(filepath.Join(c.out, name+".png"), 14*vg.Centimeter, 11*vg.Centimeter, pa, pc)
}

// savePNG lays plots out side by side (each w x h) and writes one PNG
// atomically.
func savePNG(path string, w, h vg.Length, plots ...*plot.Plot) error {
	img := vgimg.New(w*vg.Length(len(plots)), h)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align([][]*plot.Plot{plots}, tiles, dc)
	for i, p := range plots {
		p.Draw(canvases[0][i])
	}
	return atomicfile.Write(path, func(out io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(out)
		return err
	})
}
