package track

import (
	"encoding/json"
	"fmt"
	"html"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/store"
)

// Verdict follow-up. A request's answer called some benchmarks better or
// worse (its claims). Once the request landed on a tracked branch, the
// tracked runs from the one that measured the landing commit on are read
// in order: a claim is confirmed by the first of them whose own verdict
// on the same benchmark row (name, parameters, unit, metric) is the same
// significant direction, and retracted when window runs passed without
// one. Each tracked run compares its commit with the commit measured
// before it, so "significant" is that run's verdict, with its multiple
// testing control. The follow-up is decided once every claim is.

// PostRun is one tracked run after a landing: the commit it measured and
// its verdicts.
type PostRun struct {
	Commit   string
	Verdicts []store.Verdict
}

// FollowUp decides the follow-up of claims (the answer's better and worse
// verdicts) over runs, the tracked runs from the landing commit's on, in
// order, at most window of which count. It returns one line per claim,
// the benchmark's Label and what became of it separated by a tab, and
// whether every claim is decided; until then the lines are nil.
func FollowUp(branch string, claims []store.Verdict, runs []PostRun, window int) ([]string, bool) {
	if window < 1 {
		window = 1
	}
	if len(runs) > window {
		runs = runs[:window]
	}
	var lines []string
	for _, c := range claims {
		line, measured := "", false
	scan:
		for _, r := range runs {
			for _, v := range r.Verdicts {
				measured = measured || v.Key == c.Key
				if v.Key == c.Key && v.Verdict == c.Verdict {
					line = Label(c.Key) + "\t" + fmt.Sprintf("confirmed on %s at %s: %+.1f%%", branch, shortSHA(r.Commit), v.DeltaPct)
					break scan
				}
			}
		}
		if line == "" {
			if len(runs) < window {
				return nil, false
			}
			line = Label(c.Key) + "\t" + fmt.Sprintf("not seen on %s after %d commits", branch, window)
			if !measured {
				// The tracked suites do not run it: nothing was seen
				// either way.
				line = Label(c.Key) + "\t" + fmt.Sprintf("not measured on %s in %d commits", branch, window)
			}
		}
		lines = append(lines, line)
	}
	return lines, len(lines) > 0
}

// Announced reports whether a change point is one that claims announced:
// the same benchmark row, changed the same way (better or worse by the
// claim's sign), first seen in the landing run's commit.
func Announced(c store.ChangePoint, landed string, claims []store.Verdict) bool {
	if c.Commit != landed {
		return false
	}
	key, err := c.Key()
	if err != nil {
		return false
	}
	for _, v := range claims {
		if sameRow(v.Key, key) && (v.DeltaPct < 0) == (c.DeltaPct < 0) {
			return true
		}
	}
	return false
}

// sameRow compares two series keys, their params as parsed JSON: the
// store writes params in one order, a change point's come back parsed.
func sameRow(a, b store.SeriesKey) bool {
	if a.Benchmark != b.Benchmark || a.Group != b.Group || a.Unit != b.Unit || a.Metric != b.Metric {
		return false
	}
	return paramsOf(a.Params).String() == paramsOf(b.Params).String()
}

func paramsOf(s string) bench.Params {
	var p bench.Params
	if s != "" {
		_ = json.Unmarshal([]byte(s), &p) // unreadable params read as none
	}
	return p
}

// Label names a benchmark row in one line: name, parameters, and the
// metric and unit in parentheses.
func Label(k store.SeriesKey) string {
	name := k.Benchmark
	if p := paramsOf(k.Params).String(); p != "" {
		name += " " + p
	}
	u := k.Unit
	if k.Metric != "" {
		u = k.Metric + " " + u
	}
	return oneLine(name + " (" + u + ")")
}

func shortSHA(c string) string {
	if len(c) > 7 {
		return c[:7]
	}
	return c
}

// followUpHeading starts the follow-up in Markdown; a benchmark name in
// the answer is escaped, so it cannot write it.
const followUpHeading = "**Follow-up after merge**"

// HasFollowUp reports whether an answer carries a follow-up already.
func HasFollowUp(msg answer.Answer) bool {
	return strings.Contains(msg.Full(answer.MarkdownGFM), followUpHeading) ||
		strings.Contains(msg.Full(answer.JIRAWiki), "*Follow-up after merge*")
}

// WithFollowUp returns an answer with the follow-up's lines appended to
// each of its renderings, full and short, escaped for each; the lines
// carry benchmark names, which come from benchmark output.
func WithFollowUp(msg answer.Answer, lines []string) answer.Answer {
	if len(lines) == 0 {
		return msg
	}
	tails := map[answer.Format]string{
		answer.MarkdownGFM: "\n\n" + followUpHeading + "\n",
		answer.MarkdownRB:  "\n\n" + followUpHeading + "\n",
		answer.JIRAWiki:    "\n\n*Follow-up after merge*\n",
		answer.Text:        "\n\nFollow-up after merge\n",
		answer.HTML:        "<p><b>Follow-up after merge</b></p><ul>",
	}
	for _, l := range lines {
		// The label is the benchmark's, from its output: escaped. The
		// rest is perfbot's words, the branch name and a short commit id.
		label, what, _ := strings.Cut(l, "\t")
		tails[answer.MarkdownGFM] += "- " + report.MarkdownEscape(label) + ": " + what + "\n"
		tails[answer.MarkdownRB] += "- " + report.ReviewBoardEscape(label) + ": " + what + "\n"
		tails[answer.JIRAWiki] += "* " + report.JIRAEscape(label) + ": " + what + "\n"
		tails[answer.Text] += "- " + label + ": " + what + "\n"
		tails[answer.HTML] += "<li>" + html.EscapeString(label+": "+what) + "</li>"
	}
	tails[answer.HTML] += "</ul>"
	add := func(f answer.Format, s string) string {
		if s == "" {
			return s
		}
		if f == answer.HTML {
			if i := strings.LastIndex(s, "</body>"); i >= 0 {
				return s[:i] + tails[f] + s[i:]
			}
			return s + tails[f]
		}
		return strings.TrimRight(s, "\n") + tails[f]
	}
	for f, r := range msg.Renderings {
		if _, ok := tails[f]; !ok {
			continue
		}
		msg.Set(f, answer.Rendering{Full: add(f, r.Full), Short: add(f, r.Short)})
	}
	return msg
}

// FollowUpReply is the follow-up as an answer of its own, for venues
// whose answers cannot be edited (a mail, a Review Board review, a Gerrit
// message): a short reply under key, with orig's subject and thread,
// plain text and one line per claim, such as
//
//   - Append (ns/op): confirmed on main at 7cc11a0: -94.0%
//
// It carries orig's state, so a venue showing one keeps it.
func FollowUpReply(orig answer.Answer, key string, lines []string) answer.Answer {
	intro := "Follow-up after merge of the change perfbot measured earlier:\n\n"
	out := answer.Answer{Key: key, Subject: orig.Subject, Summary: "follow-up after merge", State: orig.State,
		InReplyTo: orig.InReplyTo, References: append([]string(nil), orig.References...)}
	text, gfm, rb, wiki := intro, intro, intro, intro
	for _, l := range lines {
		label, what, _ := strings.Cut(l, "\t")
		text += "- " + label + ": " + what + "\n"
		gfm += "- " + report.MarkdownEscape(label) + ": " + what + "\n"
		rb += "- " + report.ReviewBoardEscape(label) + ": " + what + "\n"
		wiki += "* " + report.JIRAEscape(label) + ": " + what + "\n"
	}
	out.Set(answer.Text, answer.Rendering{Full: text})
	out.Set(answer.MarkdownGFM, answer.Rendering{Full: gfm})
	out.Set(answer.MarkdownRB, answer.Rendering{Full: rb})
	out.Set(answer.JIRAWiki, answer.Rendering{Full: wiki})
	return out
}
