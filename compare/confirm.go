package compare

import "fmt"

// Notes of a regression checked by a second run (see Confirm).
const (
	ConfirmedNote   = "confirmed by a second run"
	UnconfirmedNote = "not confirmed: a second run did not find it worse"
)

// Regressions returns the keys (Row.Key) of the rows with a candidate
// called worse, and those candidates' variants.
func (c *Comparison) Regressions() (keys, variants []string) {
	seenKey, seenVariant := map[string]bool{}, map[string]bool{}
	for i := range c.Rows {
		row := &c.Rows[i]
		for _, cand := range row.Candidates {
			if cand.Presence != Both || cand.Verdict != Worse {
				continue
			}
			if k := row.Key(); !seenKey[k] {
				seenKey[k] = true
				keys = append(keys, k)
			}
			if !seenVariant[cand.Variant] {
				seenVariant[cand.Variant] = true
				variants = append(variants, cand.Variant)
			}
		}
	}
	return keys, variants
}

// Confirm holds each regression of c to a second, independent run of the
// same benchmarks, second (nil when it could not be made, with why): a
// candidate called worse in both runs stays worse and its note says it
// was confirmed; one that second does not call worse becomes noisy, since
// a regression seen once may be the host's doing. A warning says how many
// of each. Two independent runs that must both be fooled turn a false
// alarm rate p into about p².
func (c *Comparison) Confirm(second *Comparison, why string) (confirmed, unconfirmed int) {
	again := map[string]*Candidate{}
	if second != nil {
		for i := range second.Rows {
			row := &second.Rows[i]
			for j := range row.Candidates {
				cand := &row.Candidates[j]
				again[row.Key()+"\x00"+cand.Variant] = cand
			}
		}
	}
	for i := range c.Rows {
		row := &c.Rows[i]
		for j := range row.Candidates {
			cand := &row.Candidates[j]
			if cand.Presence != Both || cand.Verdict != Worse {
				continue
			}
			if a := again[row.Key()+"\x00"+cand.Variant]; a != nil && a.Presence == Both && a.Verdict == Worse {
				cand.addNote(fmt.Sprintf("%s (%+.1f%%)", ConfirmedNote, a.DeltaPct))
				confirmed++
				continue
			}
			cand.Verdict, cand.Significant = Noisy, false
			switch a := again[row.Key()+"\x00"+cand.Variant]; {
			case a != nil && a.Presence == Both:
				cand.addNote(fmt.Sprintf("%s (it said %s, %+.1f%%)", UnconfirmedNote, a.Verdict, a.DeltaPct))
			default:
				cand.addNote(UnconfirmedNote)
			}
			unconfirmed++
		}
	}
	if confirmed+unconfirmed == 0 {
		return 0, 0
	}
	c.Summary = tally(c)
	msg := fmt.Sprintf("regressions rerun once on this host (fresh rounds in another order): %d confirmed by a second run, %d not confirmed and called noisy", confirmed, unconfirmed)
	if why != "" {
		msg += " (" + why + ")"
	}
	c.Warnings = append(c.Warnings, msg)
	return confirmed, unconfirmed
}
