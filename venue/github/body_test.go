package github

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/perfbot/perfbot/answer"
)

func TestCommentBodyPicksRendering(t *testing.T) {
	long := strings.Repeat("| a | b |\n", 7000) // 70,000 characters
	tests := []struct {
		name, md, short, want string
	}{
		{"full fits", "full\n", "short\n", "full\n"},
		{"short when full is too long", long, "short\n", "short\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CommentBody(answer.Answer{Key: "k", Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: tc.md, Short: tc.short}}})
			if got != "<!-- perfbot:k -->\n"+tc.want {
				t.Errorf("got %.80q", got)
			}
		})
	}
}

func TestCutKeepsEndAndBalances(t *testing.T) {
	var b strings.Builder
	b.WriteString("**3 better, 1 worse** summary\n\n<details><summary>all rows</summary>\n\n```\n")
	for i := range 9000 {
		b.WriteString("BenchmarkX/row-")
		b.WriteString(strings.Repeat("é", i%5))
		b.WriteString(" 1.0 2.0\n")
	}
	b.WriteString("```\n\n</details>\n\nprovenance: abc123..def456\n")
	body := CommentBody(answer.Answer{Key: "big", Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: b.String(), Short: b.String()}}})
	if n := utf8.RuneCountInString(body); n > CommentLimit {
		t.Fatalf("body has %d characters", n)
	}
	if !strings.HasPrefix(body, "<!-- perfbot:big -->\n**3 better, 1 worse** summary\n") {
		t.Errorf("summary lost: %.100q", body)
	}
	if !strings.HasSuffix(body, "provenance: abc123..def456\n") {
		t.Errorf("end lost: %q", body[len(body)-100:])
	}
	if strings.Count(body, "```")%2 != 0 || strings.Count(body, "<details>") != strings.Count(body, "</details>") {
		t.Errorf("unbalanced fences or details")
	}
	if !strings.Contains(body, "lines left out") {
		t.Error("no note of the cut")
	}
}

func TestCutClosesOpenFence(t *testing.T) {
	text := "summary\n" + strings.Repeat("x\n", 100) + "```go\ncode\n"
	got := Cut(text, 120)
	if utf8.RuneCountInString(got) > 120 || !strings.HasSuffix(got, "code\n```\n") {
		t.Errorf("got %q", got)
	}
}

func TestMarkerCannotCloseEarly(t *testing.T) {
	if m := Marker("a-->b--c"); strings.Count(m, "-->") != 1 {
		t.Errorf("marker %q", m)
	}
}

func BenchmarkCommentBodyCut(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("**3 better, 1 worse** summary\n\n<details><summary>all rows</summary>\n\n```\n")
	for range 20000 {
		sb.WriteString("BenchmarkWAL/threads=10/size=4096-8     1.00 ±  2%   3.70 ±  1%   3.7x\n")
	}
	sb.WriteString("```\n\n</details>\n")
	m := answer.Answer{Key: "k", Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: sb.String(), Short: sb.String()}}}
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		CommentBody(m)
	}
}
