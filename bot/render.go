package bot

import (
	"fmt"
	"html"
	"strings"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/review"
)

// RenderSummary is the renderer used when none is given: a one-paragraph
// answer with the verdict counts per candidate and the failures. The
// service command wires the full report renderings instead.
func RenderSummary(cmp *compare.Comparison) review.Message {
	var lines []string
	for _, t := range cmp.Summary {
		lines = append(lines, fmt.Sprintf("%s: %d better, %d worse, %d same, %d noisy", t.Variant, t.Better, t.Worse, t.Same, t.Noisy))
	}
	for _, f := range cmp.Failures {
		lines = append(lines, fmt.Sprintf("failed: %s %s: %s", f.Variant, f.Stage, f.Message))
	}
	summary := strings.Join(lines, "; ")
	if summary == "" {
		summary = "no benchmarks compared"
	}
	text := strings.Join(lines, "\n") + "\n"
	return review.Message{
		Subject:  "perfbot: " + summary,
		Summary:  summary,
		State:    StateOf(cmp),
		Markdown: text, ShortMarkdown: text, JIRA: text, ShortJIRA: text, Text: text,
		HTML: "<pre>" + html.EscapeString(text) + "</pre>",
	}
}

// StateOf is the venue state of a comparison: error when nothing could be
// compared, failure when something got worse, success otherwise.
func StateOf(cmp *compare.Comparison) review.State {
	if len(cmp.Rows) == 0 && len(cmp.Failures) > 0 {
		return review.StateError
	}
	for _, t := range cmp.Summary {
		if t.Worse > 0 {
			return review.StateFailure
		}
	}
	return review.StateSuccess
}
