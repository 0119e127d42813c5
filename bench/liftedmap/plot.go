package main

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/hinge-srl/hinge/internal/atomicfile"
)

// plotSymmetry draws the symmetry family's MAP CPU times (after grounding)
// against the number of copies of each community template (log-log),
// ground and lifted, and beside it the speed-up in CPU and in wall-clock
// time. Without symmetry rows it writes nothing.
func plotSymmetry(path string, all []*result) error {
	var rs []*result
	for _, r := range all {
		if r.inst.family == "symmetry" {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return nil
	}
	// Points whose value is not a positive finite number (a time too short
	// for the CPU clock) are left out: the axes are logarithmic.
	line := func(f func(*result) float64) plotter.XYs {
		var xy plotter.XYs
		for _, r := range rs {
			if y := f(r); y > 0 && !math.IsInf(y, 0) {
				xy = append(xy, plotter.XY{X: r.inst.symmetry, Y: y})
			}
		}
		return xy
	}
	times := plot.New()
	times.Title.Text = fmt.Sprintf("Discrete MAP of %d people in communities", rs[0].inst.people)
	times.X.Label.Text = "copies of each community template"
	times.Y.Label.Text = "CPU seconds (median, after grounding)"
	times.X.Scale, times.Y.Scale = plot.LogScale{}, plot.LogScale{}
	times.X.Tick.Marker, times.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	times.Legend.Top = true
	times.Add(plotter.NewGrid())
	speed := plot.New()
	speed.Title.Text = "Speed-up of lifted over ground MAP"
	speed.X.Label.Text = times.X.Label.Text
	speed.Y.Label.Text = "ground / lifted time"
	speed.X.Scale, speed.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	speed.Add(plotter.NewGrid())
	colors := []color.Color{color.RGBA{0, 114, 178, 255}, color.RGBA{213, 94, 0, 255}, color.RGBA{0, 158, 115, 255}}
	addLine := func(p *plot.Plot, name string, xy plotter.XYs, k int) error {
		if len(xy) == 0 {
			return nil
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		l.Color, pts.Color = colors[k], colors[k]
		l.Width = vg.Points(1.5)
		pts.Shape = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.TriangleGlyph{}}[k]
		p.Add(l, pts)
		p.Legend.Add(name, l, pts)
		return nil
	}
	if err := addLine(times, "ground MAP", line(func(r *result) float64 { return r.median(modeGround, mapCPU) }), 0); err != nil {
		return err
	}
	if err := addLine(times, "lifted MAP", line(func(r *result) float64 { return r.median(modeLifted, mapCPU) }), 1); err != nil {
		return err
	}
	if err := addLine(speed, "CPU time", line(func(r *result) float64 { return r.median(modeGround, mapCPU) / r.median(modeLifted, mapCPU) }), 0); err != nil {
		return err
	}
	if err := addLine(speed, "wall-clock time", line(func(r *result) float64 { return r.median(modeGround, mapSec) / r.median(modeLifted, mapSec) }), 2); err != nil {
		return err
	}
	speed.Legend.Top = true
	w, h := 13*vg.Centimeter, 10*vg.Centimeter
	img := vgimg.New(2*w, h)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	plots := [][]*plot.Plot{{times, speed}}
	canvases := plot.Align(plots, tiles, dc)
	times.Draw(canvases[0][0])
	speed.Draw(canvases[0][1])
	return atomicfile.Write(path, func(out io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(out)
		return err
	})
}
