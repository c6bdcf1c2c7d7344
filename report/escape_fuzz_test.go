package report

import (
	"regexp"
	"strings"
	"testing"
)

var jiraEntity = regexp.MustCompile(`&#[0-9]+;|&lt;|&gt;`)

// FuzzEscapers checks each venue's escaping on arbitrary text: nothing
// that starts markup survives unescaped, and the text stays on one line.
func FuzzEscapers(f *testing.F) {
	for _, h := range hostile {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if j := jiraEntity.ReplaceAllString(JIRAEscape(s), ""); strings.ContainsAny(j, "{}[]|*_+-^~?!#@:()<>\\\n\r\t&") {
			t.Errorf("JIRAEscape(%q) = %q", s, j)
		}
		md := MarkdownEscape(s)
		if strings.ContainsAny(md, "<>\n\r") {
			t.Errorf("MarkdownEscape(%q) = %q", s, md)
		}
		for i := 0; i < len(md); i++ {
			switch md[i] {
			case '\\':
				i++ // an escape and what it escapes
			case '[', ']', '(', ')', '|', '`', '*', '_', '~', '!', '{', '}':
				t.Errorf("MarkdownEscape(%q) = %q: unescaped %q", s, md, md[i])
			case '@', '#', ':':
				if !strings.HasPrefix(md[i+1:], zwsp) {
					t.Errorf("MarkdownEscape(%q) = %q: %q not broken", s, md, md[i])
				}
			}
		}
		rb := ReviewBoardEscape(s)
		for i := 0; i < len(rb); i++ {
			switch rb[i] {
			case '\\':
				i++
			case '[', ']', '(', ')', '|', '`', '*', '_', '{', '}', '#', '+', '-', '.', '!', '>':
				t.Errorf("ReviewBoardEscape(%q) = %q: unescaped %q", s, rb, rb[i])
			case '\n', '\r':
				t.Errorf("ReviewBoardEscape(%q) = %q: a line break", s, rb)
			}
		}
		code := MarkdownCode(s)
		if strings.ContainsAny(code, "\n\r") {
			t.Errorf("MarkdownCode(%q) = %q: a line break", s, code)
		}
		for i := 0; i < len(code); i++ {
			if code[i] == '\\' && i+1 < len(code) && code[i+1] == '|' {
				i++
				continue
			}
			if code[i] == '|' {
				t.Errorf("MarkdownCode(%q) = %q: a bare pipe would split a table cell", s, code)
			}
		}
		if strings.Contains(code, "\\\\|") {
			t.Errorf("MarkdownCode(%q) = %q: an escaped backslash frees the pipe", s, code)
		}
	})
}
