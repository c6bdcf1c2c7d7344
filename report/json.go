package report

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"

	"github.com/perfbot/perfbot/compare"
)

// JSON writes cmp as one indented JSON object with compare.Comparison's
// field names. Numbers JSON cannot hold (an infinite interval or minimum
// detectable effect, a p-value that could not be computed) are written as
// null.
func JSON(w io.Writer, cmp *compare.Comparison) error {
	data, err := marshalComparison(cmp)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// marshalComparison marshals a copy of cmp whose non-finite numbers are
// replaced by sentinels, then turns the sentinels into null.
func marshalComparison(cmp *compare.Comparison) ([]byte, error) {
	c, replaced := finiteCopy(cmp)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	if !replaced {
		return b.Bytes(), nil
	}
	return bytes.ReplaceAll(b.Bytes(), []byte(strconv.FormatFloat(sentinel, 'g', -1, 64)), []byte("null")), nil
}

// sentinel stands in for a non-finite number while marshalling; no
// measurement comes this close to the largest float64.
var sentinel = math.Float64frombits(0x7fefffffffff1234)

// finiteCopy copies the parts of cmp that hold floats, replacing NaN and
// ±Inf by sentinel.
func finiteCopy(src *compare.Comparison) (*compare.Comparison, bool) {
	replaced := false
	fix := func(v *float64) {
		if math.IsNaN(*v) || math.IsInf(*v, 0) {
			*v = sentinel
			replaced = true
		}
	}
	fixCell := func(c *compare.Cell) {
		fix(&c.Center)
		fix(&c.Lo)
		fix(&c.Hi)
	}
	c := *src
	c.Rows = make([]compare.Row, len(src.Rows))
	for i, row := range src.Rows {
		if row.Base != nil {
			b := *row.Base
			fixCell(&b)
			row.Base = &b
		}
		row.Candidates = append([]compare.Candidate(nil), row.Candidates...)
		for j := range row.Candidates {
			cd := &row.Candidates[j]
			fixCell(&cd.Cell)
			fix(&cd.DeltaPct)
			fix(&cd.Ratio)
			fix(&cd.P)
			fix(&cd.Alpha)
			fix(&cd.MDEPct)
		}
		c.Rows[i] = row
	}
	c.Geomean.Units = make([]compare.GeomeanUnit, len(src.Geomean.Units))
	for i, u := range src.Geomean.Units {
		fix(&u.Base)
		u.Candidates = append([]compare.GeomeanCandidate(nil), u.Candidates...)
		for j := range u.Candidates {
			g := &u.Candidates[j]
			fix(&g.Value)
			fix(&g.Ratio)
			fix(&g.DeltaPct)
			if g.LoPct != nil {
				v := *g.LoPct
				fix(&v)
				g.LoPct = &v
			}
			if g.HiPct != nil {
				v := *g.HiPct
				fix(&v)
				g.HiPct = &v
			}
		}
		c.Geomean.Units[i] = u
	}
	if src.Geomean.Units == nil {
		c.Geomean.Units = nil
	}
	if src.Rows == nil {
		c.Rows = nil
	}
	return &c, replaced
}
