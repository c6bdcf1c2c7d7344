package compare

import (
	"fmt"
	"strings"

	"github.com/perfbot/perfbot/provenance"
)

// maxLostNamed bounds the benchmarks a cut's warning names.
const maxLostNamed = 10

// NoteCuts records cuts in the comparison and adds a warning for each:
// which run was cut, where, and which benchmarks of the other sides its
// side lacks.
func (c *Comparison) NoteCuts(cuts []provenance.Cut) {
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
