package report

import (
	"strings"
	"testing"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/provenance"
)

// bidiRunes are the bidirectional controls (Trojan Source) and terminal
// controls that no rendering may pass on.
var bidiRunes = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\x1b\u009b"

// TestRenderersNeutraliseBidi: a right-to-left override, isolates and
// marks in a benchmark name, a failure's message and its log tail (shown
// in a code block), a warning and a patch subject reach no rendering:
// text, Markdown, JIRA, Review Board and HTML, whole (Render) or as an
// answer (Message, Brief, Refusal, Progress), summary and subject too.
func TestRenderersNeutraliseBidi(t *testing.T) {
	const evil = "Benchmark\u202eevil\u2066x\u2069\u200f\u061c\x1b[31m"
	cmp := hostileComparison(t)
	cmp.Rows[0].Benchmark = evil
	cmp.Failures = append(cmp.Failures, provenance.Failure{Variant: cmp.Candidates[0], Stage: "run",
		Message: "exit " + evil, LogTail: "line one\n\tat " + evil + "\nline \u202dthree\u202c\n"})
	cmp.Warnings = append(cmp.Warnings, "warning "+evil)
	cmp.Provenance.Sides[1].PatchSubject = "fix \u202e" + evil
	check := func(where, out string) {
		t.Helper()
		if i := strings.IndexAny(out, bidiRunes); i >= 0 {
			t.Errorf("%s passes %q on: …%q…", where, []rune(out[i:])[0], out[max(0, i-40):min(len(out), i+40)])
		}
	}
	for f, out := range renderAll(t, cmp) {
		if f == "json" {
			continue // data for programs: the JSON encoding keeps each name as it was
		}
		check("Render "+f, out)
	}
	msg, err := Message(cmp, Options{NoCharts: true})
	if err != nil {
		t.Fatal(err)
	}
	answers := map[string]answer.Answer{"Message": msg, "Brief": Brief(cmp),
		"Refusal":  Refusal("k", "subject "+evil, "text "+evil),
		"Progress": Progress(answer.StatePending, "suite "+evil, "title "+evil)}
	for name, a := range answers {
		check(name+" subject", a.Subject)
		check(name+" summary", a.Summary)
		for _, f := range []answer.Format{answer.Text, answer.MarkdownGFM, answer.MarkdownRB, answer.JIRAWiki, answer.HTML} {
			check(name+" "+string(f), a.Full(f))
			check(name+" "+string(f)+" short", a.Short(f))
		}
	}
}
