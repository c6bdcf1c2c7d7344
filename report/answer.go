package report

import (
	"github.com/perfbot/perfbot/internal/safetext"

	"fmt"
	"html"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
)

// MeasuredCommit is the commit the head side of cmp was measured at: the
// first candidate checked out from a ref, with no patch applied here. It is
// what a commit status speaks for (answer.Answer.Commit); "" when there is
// none.
func MeasuredCommit(cmp *compare.Comparison) string {
	for _, side := range cmp.Provenance.Sides {
		if side.Variant != cmp.Base && side.Patch == "" && side.Commit != "" {
			return side.Commit
		}
	}
	return ""
}

// State is the outcome a venue shows for a comparison, decided here for
// every answer: error when no row was measured on both sides (an empty
// comparison, or one whose builds failed), failure when a candidate got
// worse anywhere, success otherwise.
func State(cmp *compare.Comparison) answer.State {
	if cmp == nil {
		return answer.StateError
	}
	compared := false
	for _, row := range cmp.Rows {
		if row.Base == nil {
			continue
		}
		for _, c := range row.Candidates {
			if c.Presence == compare.Both {
				compared = true
			}
		}
	}
	if !compared {
		return answer.StateError
	}
	for _, t := range cmp.Summary {
		if t.Worse > 0 {
			return answer.StateFailure
		}
	}
	return answer.StateSuccess
}

// Brief is a one-paragraph answer in every format: the headline, the
// verdict counts per candidate and the failures, without tables. It is
// the answer of a service that was given no fuller renderer.
func Brief(cmp *compare.Comparison) answer.Answer {
	if cmp == nil {
		cmp = &compare.Comparison{}
	}
	h := headlineOf(cmp)
	// Each line is a label and a text; the label is perfbot's own or a
	// variant's name, and both are escaped apart so the colon between them
	// stays plain.
	type line struct{ label, text string }
	lines := []line{{markWord(h.Mark), h.Changes}}
	for _, t := range cmp.Summary {
		lines = append(lines, line{t.Variant, fmt.Sprintf("%d better, %d worse, %d same, %d noisy", t.Better, t.Worse, t.Same, t.Noisy)})
	}
	for _, f := range cmp.Failures {
		lines = append(lines, line{"failed", f.Variant + " " + f.Stage + ": " + oneLine(f.Message)})
	}
	summary := SummaryLine(cmp)
	join := func(esc func(string) string, sep string) string {
		var out []string
		for _, l := range lines {
			out = append(out, esc(l.label)+": "+esc(l.text))
		}
		return strings.Join(out, sep) + "\n"
	}
	text := join(oneLine, "\n")
	mdText := join(MarkdownEscape, "\n\n")
	jiraText := join(JIRAEscape, "\n")
	a := answer.Answer{
		Subject: messageSubject(cmp),
		Summary: summary,
		State:   State(cmp),
		Commit:  MeasuredCommit(cmp),
	}
	a.Set(answer.MarkdownGFM, answer.Rendering{Full: mdText})
	a.Set(answer.MarkdownRB, answer.Rendering{Full: join(ReviewBoardEscape, "\n\n")})
	a.Set(answer.JIRAWiki, answer.Rendering{Full: jiraText})
	a.Set(answer.Text, answer.Rendering{Full: text})
	a.Set(answer.HTML, answer.Rendering{Full: "<pre>" + html.EscapeString(text) + "</pre>"})
	return a.Map(safetext.Answer)
}

// Refusal is the answer to a request that the trigger policy refused: the
// policy's polite text (plain), escaped for each format. key makes the
// answer stable (a mail's Message-ID), so a second attempt to answer edits
// or repeats the same post instead of adding another; subject is the
// subject of the request, answered with "Re:" in a mail thread.
func Refusal(key, subject, text string) answer.Answer {
	a := answer.Answer{
		Key:     key,
		Subject: subject,
		Summary: "not run: the trigger policy does not allow this request",
	}
	a.Set(answer.MarkdownGFM, answer.Rendering{Full: MarkdownEscape(text)})
	a.Set(answer.MarkdownRB, answer.Rendering{Full: ReviewBoardEscape(text)})
	a.Set(answer.JIRAWiki, answer.Rendering{Full: JIRAEscape(text)})
	a.Set(answer.Text, answer.Rendering{Full: text + "\n"})
	return a.Map(safetext.Answer)
}

// markWord is a mark in plain words, for text.
func markWord(mark string) string {
	switch mark {
	case MarkBetter:
		return "BETTER"
	case MarkWorse:
		return "WORSE"
	case MarkMixed:
		return "MIXED"
	case MarkSame:
		return "NO CHANGE"
	case MarkNoisy:
		return "NO CLEAR CHANGE"
	case MarkFailed:
		return "FAILED"
	}
	return "NOTHING COMPARED"
}
