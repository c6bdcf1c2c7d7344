package job

import (
	"errors"
	"fmt"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/finite"
	"github.com/perfbot/perfbot/runner"
)

// The comparison's JSON leaves out each cell's raw values, which the
// store keeps: an outcome's JSON carries them beside it, so that a job
// run in a child process reaches its parent whole.

// wireOutcome is an Outcome as JSON.
type wireOutcome struct {
	Comparison *compare.Comparison `json:"comparison"`
	Cells      []wireCell          `json:"cells,omitempty"`
	Results    []*bench.Result     `json:"results,omitempty"`
	Profiles   []runner.Profile    `json:"profiles,omitempty"`
}

// wireCell is one cell's raw values: row Row's baseline cell when
// Candidate is -1, else its Candidate'th candidate's.
type wireCell struct {
	Row       int            `json:"row"`
	Candidate int            `json:"candidate"`
	Samples   []float64      `json:"samples,omitempty"`
	Rounds    []float64      `json:"rounds,omitempty"`
	Summary   *bench.Summary `json:"summary,omitempty"`
}

// MarshalJSON writes the outcome with every cell's samples, rounds and
// summary, NaN and the infinities included (package finite). A calibration
// is not carried: it is recorded where it runs.
func (o *Outcome) MarshalJSON() ([]byte, error) {
	w := &wireOutcome{Comparison: o.Comparison, Results: o.Results, Profiles: o.Profiles}
	if o.Comparison != nil {
		add := func(row, cand int, c *compare.Cell) {
			if len(c.Samples) > 0 || len(c.Rounds) > 0 || c.Summary != nil {
				w.Cells = append(w.Cells, wireCell{Row: row, Candidate: cand, Samples: c.Samples, Rounds: c.Rounds, Summary: c.Summary})
			}
		}
		for i := range o.Comparison.Rows {
			row := &o.Comparison.Rows[i]
			if row.Base != nil {
				add(i, -1, row.Base)
			}
			for j := range row.Candidates {
				add(i, j, &row.Candidates[j].Cell)
			}
		}
	}
	return finite.Marshal(w, false)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (o *Outcome) UnmarshalJSON(data []byte) error {
	var w wireOutcome
	if err := finite.Unmarshal(data, &w); err != nil {
		return err
	}
	out, err := w.outcome()
	if err != nil {
		return err
	}
	*o = *out
	return nil
}

// DecodeOutcome reads what a child printed, in one pass: an outcome as
// MarshalJSON writes it ("perfbot job"), or a bare comparison ("perfbot
// compare --format json"), which becomes an outcome holding just the
// comparison. The two share no field name.
func DecodeOutcome(data []byte) (*Outcome, error) {
	var w struct {
		wireOutcome
		compare.Comparison
	}
	if err := finite.Unmarshal(data, &w); err != nil {
		return nil, err
	}
	if w.wireOutcome.Comparison == nil {
		cmp := w.Comparison
		return &Outcome{Comparison: &cmp}, nil
	}
	return w.wireOutcome.outcome()
}

// outcome puts each cell's raw values back into the comparison.
func (w *wireOutcome) outcome() (*Outcome, error) {
	if w.Comparison == nil {
		return nil, errors.New("outcome without a comparison")
	}
	for _, c := range w.Cells {
		if c.Row < 0 || c.Row >= len(w.Comparison.Rows) {
			return nil, fmt.Errorf("outcome: cell of row %d, which does not exist", c.Row)
		}
		row := &w.Comparison.Rows[c.Row]
		var cell *compare.Cell
		switch {
		case c.Candidate == -1 && row.Base != nil:
			cell = row.Base
		case c.Candidate >= 0 && c.Candidate < len(row.Candidates):
			cell = &row.Candidates[c.Candidate].Cell
		default:
			return nil, fmt.Errorf("outcome: row %d has no cell %d", c.Row, c.Candidate)
		}
		cell.Samples, cell.Rounds, cell.Summary = c.Samples, c.Rounds, c.Summary
	}
	return &Outcome{Comparison: w.Comparison, Results: w.Results, Profiles: w.Profiles}, nil
}
