package report

import "strings"

// legend explains what the document's tables abbreviate, only the terms
// they use: p, n, mde, tol, ~ and the verdict words.
func legend(doc *Document) []Fact {
	var p, n, mde, tol, tilde, ratio bool
	verdicts := map[string]bool{}
	see := func(ls []*Line) {
		for _, l := range ls {
			for _, c := range l.Cells {
				p = p || strings.Contains(c.Stat, "p=")
				n = n || strings.Contains(c.Stat, "n=")
				mde = mde || strings.Contains(c.Stat, "mde=")
				tol = tol || strings.Contains(c.Stat, "tol=")
				tilde = tilde || c.Delta == "~"
				ratio = ratio || c.Ratio != ""
				verdicts[c.Verdict] = true
			}
			// A units cell carries its details cell's change, verdict
			// and figures: the legend is the same with or without the
			// details tables.
			for _, u := range l.Units {
				p = p || strings.Contains(u.Stat, "p=")
				n = n || strings.Contains(u.Stat, "n=")
				mde = mde || strings.Contains(u.Stat, "mde=")
				tol = tol || strings.Contains(u.Stat, "tol=")
				tilde = tilde || u.Delta == "~"
				verdicts[u.Verdict] = true
			}
		}
	}
	for _, s := range doc.Sections {
		see(s.Lines)
	}
	for _, s := range doc.Details {
		see(s.Lines)
	}
	var out []Fact
	add := func(ok bool, label, value string) {
		if ok {
			out = append(out, Fact{Label: label, Value: value})
		}
	}
	add(p, "p", "the chance of a difference this large if the patch changed nothing; below the significance level, the change counts")
	add(n, "n", "measurements per side (base+patch when they differ)")
	add(mde, "mde", "the smallest change this data could have detected")
	add(tol, "tol", "the tolerance a simulated count is held to")
	add(tilde, "~", "no significant difference")
	add(verdicts["better"] || verdicts["worse"], "better, worse", "a significant change, in the better or the worse direction")
	add(verdicts["same"], "same", "no significant change")
	add(verdicts["noisy"], "noisy", "the spread is too wide to tell")
	add(verdicts["added"] || verdicts["removed"], "added, removed", "only one side has the benchmark")
	return out
}
