package compare

import "fmt"

// UnfairNote is the note of a row whose suite could not be measured fairly:
// the other sides used the CPU during its rounds beyond the bound, even
// when they were run again.
const UnfairNote = "could not be measured fairly: the other sides used the CPU during its rounds"

// NoteUnfair marks the rows of suite's results (keys as bench.Result.Key
// gives them) as not measured fairly: a better or worse verdict becomes
// noisy, since the change may be the other sides' work rather than the
// patch's; every verdict gets UnfairNote; and a warning says why.
func (c *Comparison) NoteUnfair(suite string, keys []string, why string) {
	in := map[string]bool{}
	for _, k := range keys {
		in[k] = true
	}
	changed := 0
	for i := range c.Rows {
		row := &c.Rows[i]
		if !in[row.Key()] {
			continue
		}
		for j := range row.Candidates {
			cand := &row.Candidates[j]
			if cand.Presence != Both {
				continue
			}
			if cand.Verdict == Better || cand.Verdict == Worse {
				cand.Verdict, cand.Significant = Noisy, false
				changed++
			}
			if cand.Note != "" {
				cand.Note += "; "
			}
			cand.Note += UnfairNote
		}
	}
	c.Summary = tally(c)
	c.Warnings = append(c.Warnings, fmt.Sprintf("suite %s could not be measured fairly: %s; %d better or worse verdict(s) became noisy", suite, why, changed))
}
