package harness

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The picture's colours. The fault's shade and the moments' marks are
// drawn in no other colour: a test finds them by it.
var (
	ColorFaultShade = color.RGBA{R: 0xDD, G: 0xE6, B: 0xF3, A: 0xFF}
	ColorMoment     = color.RGBA{R: 0x3B, G: 0x4C, B: 0xC0, A: 0xFF}
	colorGood       = color.RGBA{R: 0x5A, G: 0xAE, B: 0x61, A: 0xFF}
	colorBad        = color.RGBA{R: 0xD7, G: 0x30, B: 0x1F, A: 0xFF}
	colorWorse      = color.RGBA{R: 0xFC, G: 0x8D, B: 0x59, A: 0xFF}
	colorPending    = color.RGBA{R: 0xF4, G: 0xD0, B: 0x3F, A: 0xFF}
	colorNone       = color.RGBA{R: 0xBD, G: 0xBD, B: 0xBD, A: 0xFF}
	colorLog        = color.RGBA{R: 0x44, G: 0x44, B: 0x44, A: 0xFF}
	colorGauge      = color.RGBA{R: 0x21, G: 0x66, B: 0xAC, A: 0xFF}
	colorAgeLogged  = color.RGBA{R: 0xB2, G: 0x18, B: 0x2B, A: 0xFF}
)

// The picture's size: the relist's age above, the lanes below.
const (
	pictureWidth = 11 * vg.Inch
	ageHeight    = 2.6 * vg.Inch
	laneHeight   = 0.32 * vg.Inch
)

// LaneMoments is the picture's lane of the moment-by-moment table's
// rows: one mark at each row's time.
const LaneMoments = "moments (the table)"

// thresholdIs is the threshold the kubelet's PLEG health error names.
var thresholdIs = regexp.MustCompile(`threshold is ([0-9.hmsuµn]+)`)

// span is a stretch of a lane in one state, seconds after the fault.
type span struct {
	from, to float64
	color    color.Color
}

// lane is one row of the picture's lower part: spans, or marks.
type lane struct {
	name  string
	spans []span
	marks []float64
	color color.Color // the marks'
}

// Picture draws a run as an SVG timeline, seconds after the fault on
// the x axis, the fault's span shaded: above, the relist's age (from
// /metrics answers' kubelet_pleg_last_seen_seconds, and from the
// kubelet's "pleg was last seen active D ago" where /metrics is dark)
// against the threshold; below, one lane each for the table's moments
// (tl.Rows), the harness's /metrics and /metrics/cadvisor requests,
// Prometheus's up of each, Ready and its reason, each alert's pending
// and firing spans, and the kubelet's lines of each of LoggedTexts.
func Picture(run *FaultRun, tl *FaultTimeline) ([]byte, error) {
	secs := func(t time.Time) float64 { return t.Sub(run.Frozen).Seconds() }
	rows := tl.Rows(run.Fault.Describe())
	lo, hi := 0.0, secs(run.Thawed)
	if len(run.Rounds) > 0 {
		last := run.Rounds[len(run.Rounds)-1]
		lo, hi = min(lo, secs(run.Rounds[0].Start)), max(hi, secs(last.Start.Add(run.every())))
	}
	for _, r := range rows {
		if !r.At.IsZero() {
			lo, hi = min(lo, secs(r.At)), max(hi, secs(r.At))
		}
	}
	lo, hi = lo-5, hi+5

	// Each part's first plotter is the fault's shade: under the rest.
	part := func() *plot.Plot {
		p := plot.New()
		p.X.Tick.Marker = secondTicks{most: 20}
		p.Add(&shade{from: 0, to: secs(run.Thawed)})
		return p
	}
	lanes := pictureLanes(run, tl, rows, secs, lo, hi)
	age, err := agePlot(part(), run, secs)
	if err != nil {
		return nil, err
	}
	low := lanePlot(part(), lanes)
	// Adding a plotter widens the axes to its data: the range is set
	// last.
	for _, p := range []*plot.Plot{age, low} {
		p.X.Min, p.X.Max = lo, hi
	}
	age.Title.Text = fmt.Sprintf("%s: a kubelet %s, as it lived the fault", run.name(), run.Release)
	low.X.Label.Text = "seconds after the fault began (shaded: the fault)"

	height := ageHeight + vg.Length(len(lanes)+2)*laneHeight
	canvas := vgsvg.New(pictureWidth, height)
	dc := draw.New(canvas)
	// The x axis's last label may reach past the data's right end; the
	// lanes' names are measured in Liberation Serif, and a viewer
	// without it may draw them a little wider.
	left, right := vg.Points(28), -vg.Points(18)
	top := draw.Crop(dc, left, right, height-ageHeight, 0)
	bottom := draw.Crop(dc, left, right, 0, -ageHeight)
	// Both parts' data areas begin at the same x: the wider y axis
	// sets it.
	ta, ba := age.DataCanvas(top), low.DataCanvas(bottom)
	if d := ta.Min.X - ba.Min.X; d > 0 {
		bottom = draw.Crop(bottom, d, 0, 0, 0)
	} else {
		top = draw.Crop(top, -d, 0, 0, 0)
	}
	age.Draw(top)
	low.Draw(bottom)
	var b bytes.Buffer
	if _, err := canvas.WriteTo(&b); err != nil {
		return nil, err
	}
	// The fonts are not embedded: a viewer without Liberation Serif
	// falls back to a font of the same metrics, not to a wider one.
	return bytes.ReplaceAll(b.Bytes(), []byte("font-family:Liberation Serif;"), []byte("font-family:'Liberation Serif','Times New Roman',Times,serif;")), nil
}

// every is the run's round, 10 s when unknown.
func (r *FaultRun) every() time.Duration {
	if r.Every > 0 {
		return r.Every
	}
	return 10 * time.Second
}

// name is the run's name in paths: the fault's, and its gates set on.
func (r *FaultRun) name() string {
	h := FaultScenario{Fault: r.Fault, Gates: r.Gates}
	return h.Name()
}

// agePlot is the relist's age, in seconds, against the threshold.
func agePlot(p *plot.Plot, run *FaultRun, secs func(time.Time) float64) (*plot.Plot, error) {
	p.Y.Label.Text = "relist age (s)"
	threshold := PLEGThreshold
	var gauge, logged plotter.XYs
	add := func(at time.Time, lastSeen float64) {
		if lastSeen != 0 {
			gauge = append(gauge, plotter.XY{X: secs(at), Y: at.Sub(time.Unix(0, int64(lastSeen*1e9))).Seconds()})
		}
	}
	for i := range run.Rounds {
		add(run.Rounds[i].End, run.Rounds[i].LastSeen())
	}
	for _, a := range run.Patient {
		add(a.Start.Add(a.Took), a.LastSeen)
	}
	prev := -1e9
	for _, l := range run.Log {
		m := lastSeenActive.FindStringSubmatch(l.Raw)
		if m == nil {
			continue
		}
		if t := thresholdIs.FindStringSubmatch(l.Raw); t != nil {
			if d, err := time.ParseDuration(t[1]); err == nil {
				threshold = d
			}
		}
		d, err := time.ParseDuration(m[1])
		// A line a second: one point a second is all the picture shows.
		if x := secs(l.Time); err == nil && x-prev >= 1 {
			logged, prev = append(logged, plotter.XY{X: x, Y: d.Seconds()}), x
		}
	}
	// Room above for the legend.
	top := threshold.Seconds() * 1.45
	for _, xy := range append(append(plotter.XYs{}, gauge...), logged...) {
		top = max(top, xy.Y*1.3)
	}
	p.Y.Min, p.Y.Max = 0, top
	p.Y.Tick.Marker = secondTicks{most: 8}
	th, err := plotter.NewLine(plotter.XYs{{X: -1e4, Y: threshold.Seconds()}, {X: 1e4, Y: threshold.Seconds()}})
	if err != nil {
		return nil, err
	}
	th.LineStyle.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	p.Add(th)
	p.Legend.Add(fmt.Sprintf("the PLEG's threshold (%s)", threshold), th)
	for _, s := range []struct {
		xys   plotter.XYs
		c     color.Color
		shape draw.GlyphDrawer
		name  string
	}{
		{gauge, colorGauge, draw.CircleGlyph{}, "now - kubelet_pleg_last_seen_seconds (a /metrics answer)"},
		{logged, colorAgeLogged, draw.TriangleGlyph{}, "\"pleg was last seen active D ago\" (the kubelet's log)"},
	} {
		if len(s.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(s.xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = s.c, s.shape, vg.Points(2.5)
		p.Add(sc)
		p.Legend.Add(s.name, sc)
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs = vg.Points(6)
	return p, nil
}

// lanePlot is the lanes, first at the top.
func lanePlot(p *plot.Plot, lanes []lane) *plot.Plot {
	var ticks []plot.Tick
	for i, l := range lanes {
		ticks = append(ticks, plot.Tick{Value: -float64(i), Label: l.name})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min, p.Y.Max = -float64(len(lanes))+0.5, 0.5
	p.Title.Text = "green: answered, up 1, Ready True · orange: failed otherwise, Ready False for another reason (the runtime down)\nred: timed out, up 0, Ready False naming the PLEG, alert firing · yellow: alert pending · grey: no answer"
	p.Title.TextStyle.Font.Size = vg.Points(9)
	p.Add(&laneDrawer{lanes: lanes})
	return p
}

// pictureLanes are the lanes of a run.
func pictureLanes(run *FaultRun, tl *FaultTimeline, rows []Row, secs func(time.Time) float64, begin, end float64) []lane {
	moments := lane{name: LaneMoments, color: ColorMoment}
	for _, r := range rows {
		if !r.At.IsZero() {
			moments.marks = append(moments.marks, secs(r.At))
		}
	}
	lanes := []lane{moments}
	// Each round's state lasts until the next round's.
	states := func(name string, at func(*Round) time.Time, state func(*Round) color.Color) lane {
		l := lane{name: name}
		for i := range run.Rounds {
			r := &run.Rounds[i]
			from, to := secs(at(r)), end
			if i+1 < len(run.Rounds) {
				to = secs(at(&run.Rounds[i+1]))
			}
			c := state(r)
			if c == nil {
				continue
			}
			if n := len(l.spans); n > 0 && l.spans[n-1].color == c && l.spans[n-1].to == from {
				l.spans[n-1].to = to
				continue
			}
			l.spans = append(l.spans, span{from: from, to: to, color: c})
		}
		return l
	}
	started := func(r *Round) time.Time { return r.Start }
	for _, path := range []string{"/metrics", "/metrics/cadvisor"} {
		lanes = append(lanes, states("GET "+path, started, func(r *Round) color.Color {
			switch a := r.Answer(path); {
			case a == nil:
				return nil
			case a.OK():
				return colorGood
			case a.TimedOut:
				return colorBad
			}
			return colorWorse
		}))
	}
	for _, path := range []string{"/metrics", "/metrics/cadvisor"} {
		lanes = append(lanes, states("up "+path, func(r *Round) time.Time { return r.AlertsAt }, func(r *Round) color.Color {
			switch up, ok := r.Up()[path]; {
			case !ok:
				return colorNone
			case up == 1:
				return colorGood
			}
			return colorBad
		}))
	}
	lanes = append(lanes, states("Ready (Node object)", func(r *Round) time.Time { return r.Ready.At }, func(r *Round) color.Color {
		switch c := r.Ready; {
		case r.ReadyErr != nil || c.Status == "":
			return colorNone
		case c.Status == "True":
			return colorGood
		case strings.Contains(c.Message, PLEGUnhealthy):
			return colorBad
		}
		return colorWorse
	}))
	for _, a := range tl.Alerts {
		if a.Pending == nil && a.Firing == nil {
			continue
		}
		lanes = append(lanes, states("alert "+a.Name, func(r *Round) time.Time { return r.AlertsAt }, func(r *Round) color.Color {
			switch al := findAlert(r.Alerts, a.Name); {
			case r.AlertsErr != nil || al == nil:
				return nil
			case al.State == "firing":
				return colorBad
			}
			return colorPending
		}))
	}
	// Marks closer than a 300th of the axis (3 pt or so) draw as one.
	apart := max(1, (end-begin)/300)
	for _, text := range LoggedTexts {
		l := lane{name: "log: " + text, color: colorLog}
		prev := -1e9
		for _, line := range run.Log {
			if x := secs(line.Time); strings.Contains(line.Text, text) && x >= begin && x <= end && x-prev >= apart {
				l.marks, prev = append(l.marks, x), x
			}
		}
		if len(l.marks) > 0 {
			lanes = append(lanes, l)
		}
	}
	return lanes
}

// laneDrawer draws the lanes' spans and marks.
type laneDrawer struct{ lanes []lane }

func (d *laneDrawer) Plot(c draw.Canvas, p *plot.Plot) {
	x, y := p.Transforms(&c)
	for i, l := range d.lanes {
		y0, y1 := y(-float64(i)-0.35), y(-float64(i)+0.35)
		for _, s := range l.spans {
			x0, x1 := x(s.from), x(s.to)
			c.FillPolygon(s.color, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		}
		// A lane's marks are one path: a long run has thousands.
		var marks vg.Path
		seen := map[float64]bool{}
		for _, m := range l.marks {
			if seen[m] || !c.ContainsX(x(m)) {
				continue
			}
			seen[m] = true
			marks.Move(vg.Point{X: x(m), Y: y0})
			marks.Line(vg.Point{X: x(m), Y: y1})
		}
		if len(marks) > 0 {
			c.SetLineStyle(draw.LineStyle{Color: l.color, Width: vg.Points(1)})
			c.Stroke(marks)
		}
	}
}

// shade is the fault's span, over the whole height.
type shade struct{ from, to float64 }

func (s *shade) Plot(c draw.Canvas, p *plot.Plot) {
	x, _ := p.Transforms(&c)
	x0, x1 := x(s.from), x(s.to)
	c.FillPolygon(ColorFaultShade, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
}

// secondTicks marks an axis of seconds every 30 s, 1, 2, 5, 10 or 20
// minutes: the least step that gives at most most ticks, labelled.
type secondTicks struct{ most int }

func (t secondTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 30.0
	for _, s := range []float64{60, 120, 300, 600, 1200} {
		if (hi-lo)/step <= float64(t.most) {
			break
		}
		step = s
	}
	var ts []plot.Tick
	for v := step * math.Floor(lo/step); v <= hi; v += step {
		if v >= lo {
			ts = append(ts, plot.Tick{Value: v, Label: fmt.Sprintf("%.0f", v)})
		}
	}
	return ts
}
