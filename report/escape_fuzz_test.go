package report

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var jiraEntity = regexp.MustCompile(`&#[0-9]+;|&lt;|&gt;`)

// signs are the signs jiraHeadline keeps: before a digit at a word's start.
var signs = regexp.MustCompile(`(^| )[+-]([0-9])`)

// jiraMisread says what in s, a JIRAEscape output, JIRA's wiki renderer
// would read as markup, or "" when nothing. Each character reference
// counts as one character that is neither a letter nor a space.
func jiraMisread(s string) string {
	rs := []rune(jiraEntity.ReplaceAllString(s, "¤"))
	word := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	for i, r := range rs {
		if strings.ContainsRune("{}[]|!\\<>\n\r\t", r) {
			return "a bare " + string(r)
		}
		var prev, next rune = ' ', ' '
		if i > 0 {
			prev = rs[i-1]
		}
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		switch {
		case r == '&' && (next == '#' || unicode.IsLetter(next)):
			return "a character reference"
		case strings.ContainsRune("*_+-^~", r):
			opens := !word(prev) && i+1 < len(rs) && !unicode.IsSpace(next)
			closes := i > 0 && !unicode.IsSpace(prev) && !word(next)
			if opens || closes || i == 0 && (r == '*' || r == '-') {
				return "a text effect " + string(r)
			}
		case r == '?' && next == '?':
			return "a citation"
		case r == '#' && i == 0:
			return "a numbered list"
		}
	}
	plain := string(rs)
	for _, bad := range []string{"://", "mailto:", ":)", ":(", ":P", ":D", ";)", "(y)", "(x)", "(/)", "(!)", "(i)", "(on)"} {
		if strings.Contains(strings.ToLower(plain), strings.ToLower(bad)) {
			return bad
		}
	}
	return ""
}

// FuzzEscapers checks each venue's escaping on arbitrary text: nothing
// that starts markup survives unescaped, and the text stays on one line.
func FuzzEscapers(f *testing.F) {
	for _, h := range hostile {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if j := JIRAEscape(s); jiraMisread(j) != "" {
			t.Errorf("JIRAEscape(%q) = %q: %s", s, j, jiraMisread(j))
		}
		// A headline may keep its numbers' signs, which open no effect
		// that anything in it could close.
		j := jiraHeadline(s + " -5% time")
		if !strings.HasSuffix(j, " -5% time") {
			t.Errorf("jiraHeadline(%q) = %q: the sign is escaped", s, j)
		}
		if bad := jiraMisread(signs.ReplaceAllString(j, "${1}")); bad != "" {
			t.Errorf("jiraHeadline(%q) = %q: %s", s, j, bad)
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
