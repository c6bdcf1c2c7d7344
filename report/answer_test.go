package report

import (
	"strings"
	"testing"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/provenance"
)

// TestOneStateForEveryAnswer checks that every answer report builds agrees
// on the state of a comparison, the empty one included.
func TestOneStateForEveryAnswer(t *testing.T) {
	for _, tc := range []struct {
		name string
		cmp  *compare.Comparison
		want answer.State
	}{
		{"empty", &compare.Comparison{Base: "base", Candidates: []string{"patch"}}, answer.StateError},
		{"failed build", &compare.Comparison{Base: "base", Candidates: []string{"patch"},
			Failures: []provenance.Failure{{Variant: "base", Stage: "build", Message: "exit status 1"}}}, answer.StateError},
		{"quickstart", quickstartComparison(t), answer.StateFailure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, err := Message(tc.cmp, Options{NoCharts: true})
			if err != nil {
				t.Fatal(err)
			}
			brief := Brief(tc.cmp)
			if State(tc.cmp) != tc.want || msg.State != tc.want || brief.State != tc.want {
				t.Errorf("State %q, Message %q, Brief %q; want %q", State(tc.cmp), msg.State, brief.State, tc.want)
			}
			for format, body := range map[string]string{"markdown": brief.Full(answer.MarkdownGFM), "jira": brief.Full(answer.JIRAWiki), "text": brief.Full(answer.Text), "reviewboard": brief.Full(answer.MarkdownRB)} {
				if body == "" || !strings.Contains(body, "better") && tc.want != answer.StateError {
					t.Errorf("Brief %s: %q", format, body)
				}
			}
		})
	}
}
