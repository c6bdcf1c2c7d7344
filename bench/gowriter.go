package bench

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// GoWriter writes results in Go's benchmark format, which benchstat and
// perfbot's own gobench parser read back. Each sample becomes one benchmark
// line; a result with only a summary becomes one line holding its mean.
// Parameters become sub-benchmark parts ("Name/threads=10"), a metric is
// folded into the unit ("p99-us"), and the group is written as a "pkg:"
// line whenever it changes.
type GoWriter struct {
	w     io.Writer
	group string
	units map[string]bool
}

// NewGoWriter returns a GoWriter writing to w.
func NewGoWriter(w io.Writer) *GoWriter {
	return &GoWriter{w: w, units: map[string]bool{}}
}

// Write writes r.
func (g *GoWriter) Write(r *Result) error {
	if r.Group != g.group {
		g.group = r.Group
		if _, err := fmt.Fprintf(g.w, "pkg: %s\n", oneLine(r.Group)); err != nil {
			return err
		}
	}
	unit := goToken(r.Unit)
	if r.Metric != "" {
		unit = goToken(r.Metric) + "-" + unit
	}
	if unit == "" {
		unit = "value"
	}
	if !g.units[unit] {
		g.units[unit] = true
		if _, err := fmt.Fprintf(g.w, "Unit %s better=%s\n", unit, r.Better); err != nil {
			return err
		}
	}
	name := "Benchmark" + goToken(r.Benchmark)
	for _, p := range r.Params {
		name += "/" + goToken(p.Name) + "=" + goToken(p.Value)
	}
	values := r.Samples
	if len(values) == 0 && r.Summary != nil {
		values = []float64{r.Summary.Mean}
	}
	for _, v := range values {
		if _, err := fmt.Fprintf(g.w, "%s 1 %s %s\n", name, strconv.FormatFloat(v, 'g', -1, 64), unit); err != nil {
			return err
		}
	}
	return nil
}

// goToken replaces the characters Go's format reserves (space, and for
// names a leading "Benchmark" is added by the writer) with underscores.
func goToken(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return '_'
		}
		return r
	}, s)
}

func oneLine(s string) string {
	return strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
}
