package compare

import (
	"fmt"
	"strings"
)

// Cut records a run whose output was cut at the sandbox's output cap: the
// results after the cut are missing from its side, and a comparison would
// otherwise call them removed (or, on the baseline, added).
type Cut struct {
	Variant string `json:"variant"`
	// Run names the run whose output was cut.
	Run string `json:"run"`
	// Kept and Dropped are the bytes of output kept and discarded.
	Kept    int64 `json:"kept_bytes"`
	Dropped int64 `json:"dropped_bytes"`
	// Last is the last benchmark read before the cut ("" when none was).
	Last string `json:"last_benchmark,omitempty"`
	// Lost are the benchmarks (with parameters and metric) that other
	// sides measured and this side lacks, filled in by NoteCuts.
	Lost []string `json:"lost,omitempty"`
}

// maxLostNamed bounds the benchmarks a cut's warning names.
const maxLostNamed = 10

// NoteCuts records cuts in the comparison and adds a warning for each:
// which run was cut, where, and which benchmarks of the other sides its
// side lacks.
func (c *Comparison) NoteCuts(cuts []Cut) {
	for _, cut := range cuts {
		cut.Lost = c.lost(cut.Variant)
		c.Cuts = append(c.Cuts, cut)
		where := "before any benchmark was read"
		if cut.Last != "" {
			where = "after " + cut.Last
		}
		msg := fmt.Sprintf("%s: output of %s was cut at the output cap after %d bytes (%d more dropped), %s", cut.Variant, cut.Run, cut.Kept, cut.Dropped, where)
		switch n := len(cut.Lost); {
		case n == 0:
			msg += "; no benchmark of the other sides is missing"
		case n <= maxLostNamed:
			msg += fmt.Sprintf("; %d benchmarks the other sides have are missing: %s", n, strings.Join(cut.Lost, ", "))
		default:
			msg += fmt.Sprintf("; %d benchmarks the other sides have are missing: %s and %d more", n, strings.Join(cut.Lost[:maxLostNamed], ", "), n-maxLostNamed)
		}
		c.Warnings = append(c.Warnings, msg)
	}
}

// lost lists the rows that variant lacks and another side has.
func (c *Comparison) lost(variant string) []string {
	var out []string
	seen := map[string]bool{}
	for i := range c.Rows {
		row := &c.Rows[i]
		missing := false
		if variant == c.Base {
			missing = row.Base == nil && len(row.Candidates) > 0
		} else {
			for k := range row.Candidates {
				if row.Candidates[k].Variant == variant && row.Candidates[k].Presence == Removed {
					missing = true
				}
			}
		}
		if !missing {
			continue
		}
		name := row.Benchmark
		if len(row.Params) > 0 {
			name += "/" + row.Params.String()
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}
