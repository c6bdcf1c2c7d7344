package gitlab

import (
	"strings"
	"testing"

	"github.com/perfbot/perfbot/answer"
)

func TestBreakReferences(t *testing.T) {
	z := zwsp
	tests := []struct{ in, want string }{
		{`title: fix \!12 \~bug %v1 $7 &amp;3 @` + z + `alice`, `title: fix \!` + z + `12 \~` + z + `bug %` + z + `v1 $` + z + `7 &amp;` + z + `3 @` + z + `alice`},
		{"%\"release 1\" !34 ~\"needs review\"", "%" + z + "\"release 1\" !" + z + "34 ~" + z + "\"needs review\""},
		{"| `Append!12-2` | 872n → 69n **-92.02%** 🟢 | \\~ 🟡 |", "| `Append!12-2` | 872n → 69n **-92.02%** 🟢 | \\~ 🟡 |"},
		{"[run](https://perf.example.org/runs/42?a=%20b) 50%", "[run](https://perf.example.org/runs/42?a=%20b) 50%"},
		{"```\n!12 ~bug\n```\n!12", "```\n!12 ~bug\n```\n!" + z + "12"},
		{"``code ` !1`` and ` unclosed !2", "``code ` !1`` and ` unclosed !" + z + "2"},
		{"![chart](x.png)", "![chart](x.png)"},
	}
	for _, tc := range tests {
		if got := breakReferences(tc.in); got != tc.want {
			t.Errorf("breakReferences(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
	body := NoteBody(answerWith("**1 worse** in \\!5"))
	if !strings.Contains(body, `\!`+z+`5`) || !strings.HasPrefix(body, Marker("k")+"\n") {
		t.Errorf("NoteBody %q", body)
	}
}

func answerWith(md string) answer.Answer { return msgOf("k", "", "", md) }
