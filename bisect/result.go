package bisect

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
)

// Commit is one commit of the series.
type Commit struct {
	Hash    string `json:"commit"`
	Subject string `json:"subject"`
}

// Key identifies one row of a comparison across comparisons.
type Key struct {
	Group     string `json:"group,omitempty"`
	Benchmark string `json:"benchmark"`
	Metric    string `json:"metric,omitempty"`
	Unit      string `json:"unit"`
	params    string
}

func keyOf(row *compare.Row) Key {
	return Key{Group: row.Group, Benchmark: row.Benchmark, Metric: row.Metric, Unit: row.Unit, params: row.Params.String()}
}

func (k Key) less(o Key) bool {
	if k.Group != o.Group {
		return k.Group < o.Group
	}
	if k.Benchmark != o.Benchmark {
		return k.Benchmark < o.Benchmark
	}
	if k.params != o.params {
		return k.params < o.params
	}
	if k.Metric != o.Metric {
		return k.Metric < o.Metric
	}
	return k.Unit < o.Unit
}

// Result is a bisected series. Its JSON is documented in docs/bisect.md.
type Result struct {
	// Base and Head are the series' ends as commit hashes.
	Base string `json:"base"`
	Head string `json:"head"`
	// Commits are the series, oldest first: position k is Commits[k-1].
	Commits []Commit `json:"commits"`
	// Benchmarks are the benchmarks that moved from base to head, each
	// with the commit responsible or the reason none is.
	Benchmarks []Benchmark `json:"benchmarks"`
	// MinChangePct is the smallest overall change that was bisected.
	MinChangePct float64 `json:"min_change_pct"`
	// Measured counts the comparisons run after base against head.
	Measured int `json:"measured"`
}

// Benchmark is one moved benchmark's finding. Its JSON names the
// responsible commit and its own change at the top level ("commit",
// "position", "subject", "delta_pct", "before", "after", "p"), with
// "commit" null and "reason" set when no single commit is responsible.
type Benchmark struct {
	Key
	Params bench.Params `json:"params"`
	// Overall is the change from base to head.
	Overall Change `json:"overall"`
	// Responsible is the step responsible for the change; nil when none
	// is, and Reason says why.
	Responsible *Step  `json:"-"`
	Reason      string `json:"reason,omitempty"`
	// Changed are the steps (the responsible one included) that moved the
	// benchmark significantly on their own, oldest first.
	Changed []Step `json:"changed"`
	// Unchanged are the positions judged not to move it: measured alone
	// or inside a span of commits that did not move it.
	Unchanged []int `json:"unchanged"`
	// Unmeasured are positions no comparison could judge (a failed
	// build).
	Unmeasured []int `json:"unmeasured,omitempty"`
}

// MarshalJSON puts the responsible commit's fields at the top level.
func (b Benchmark) MarshalJSON() ([]byte, error) {
	type plain Benchmark
	out := struct {
		plain
		Commit   *string  `json:"commit"`
		Position int      `json:"position,omitempty"`
		Subject  string   `json:"subject,omitempty"`
		DeltaPct *float64 `json:"delta_pct"`
		Before   *float64 `json:"before,omitempty"`
		After    *float64 `json:"after,omitempty"`
		P        *float64 `json:"p,omitempty"`
	}{plain: plain(b)}
	if r := b.Responsible; r != nil {
		out.Commit, out.Position, out.Subject = &r.Commit, r.Position, r.Subject
		out.DeltaPct, out.Before, out.After, out.P = &r.DeltaPct, &r.Before, &r.After, &r.P
	}
	return json.Marshal(out)
}

// Change is a benchmark's change between two commits.
type Change struct {
	Verdict  compare.Verdict `json:"verdict"`
	DeltaPct float64         `json:"delta_pct"`
	Before   float64         `json:"before"`
	After    float64         `json:"after"`
	P        float64         `json:"p"`
}

// Step is one commit of the series measured against its parent.
type Step struct {
	// Position is the commit's place in the series, 1 to Of.
	Position int    `json:"position"`
	Of       int    `json:"of"`
	Commit   string `json:"commit"`
	Subject  string `json:"subject"`
	// Change is this commit's own change.
	Change
	// Share is the step's part of the whole change, as log ratios.
	Share float64 `json:"share"`
}

// Write writes the result in format: "json" (WriteJSON) or "text"
// (WriteText).
func Write(w io.Writer, format string, r *Result) error {
	switch format {
	case "json":
		return WriteJSON(w, r)
	case "text":
		return WriteText(w, r)
	}
	return fmt.Errorf("format %q: want text or json", format)
}

// WriteJSON writes the result as indented JSON.
func WriteJSON(w io.Writer, r *Result) error {
	if r.Commits == nil {
		r.Commits = []Commit{}
	}
	if r.Benchmarks == nil {
		r.Benchmarks = []Benchmark{}
	}
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		if b.Params == nil {
			b.Params = bench.Params{}
		}
		if b.Changed == nil {
			b.Changed = []Step{}
		}
		if b.Unchanged == nil {
			b.Unchanged = []int{}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
