package gitlab

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// zwsp is a zero-width space: invisible, it keeps a GitLab reference from
// being recognized.
const zwsp = "\u200b"

// breakReferences keeps text from other people's hands in an answer from
// becoming GitLab references, which link and leave "mentioned in" notes on
// the items they name: the report's Markdown already breaks up "@user"
// and "#123" as GitHub needs, and escapes "!" and "~"; GitLab also finds
// "!123" (merge requests), "~label", "%milestone", "$123" (snippets) and
// "&123" (epics) in the rendered text. A zero-width space goes after such
// a sigil when a name or number follows, outside code fences and inline
// code: "!" and "~" where the report escaped them, the others after a
// space or at the start of a line (never inside a link's address).
func breakReferences(md string) string {
	lines := strings.SplitAfter(md, "\n")
	fence := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) && strings.Trim(t, "`~") == "" {
				fence = ""
			}
			continue
		case strings.HasPrefix(t, "```"), strings.HasPrefix(t, "~~~"):
			fence = t[:3]
			continue
		}
		lines[i] = breakLine(l)
	}
	return strings.Join(lines, "")
}

// breakLine breaks references in one line, leaving inline code alone.
func breakLine(l string) string {
	var b strings.Builder
	for l != "" {
		i := strings.IndexByte(l, '`')
		if i < 0 {
			b.WriteString(breakText(l))
			break
		}
		b.WriteString(breakText(l[:i]))
		l = l[i:]
		n := len(l) - len(strings.TrimLeft(l, "`"))
		ticks := l[:n]
		end := strings.Index(l[n:], ticks)
		if end < 0 {
			// No closing run: the backticks are literal.
			b.WriteString(ticks)
			l = l[n:]
			continue
		}
		b.WriteString(l[:n+end+n])
		l = l[n+end+n:]
	}
	return b.String()
}

// breakText breaks references in text outside code.
func breakText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		sigil := ""
		switch {
		case strings.HasPrefix(s[i:], `\!`), strings.HasPrefix(s[i:], `\~`):
			sigil = s[i : i+2]
		case strings.HasPrefix(s[i:], "&amp;") && spaceBefore(s, i):
			sigil = "&amp;"
		case (s[i] == '%' || s[i] == '$' || s[i] == '!' || s[i] == '~') && spaceBefore(s, i):
			sigil = s[i : i+1]
		}
		if sigil == "" {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteString(sigil)
		i += len(sigil)
		if r, _ := utf8.DecodeRuneInString(s[i:]); r == '"' || r == '\\' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteString(zwsp)
		}
	}
	return b.String()
}

// spaceBefore reports whether s[i] starts the text or follows a space.
func spaceBefore(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsSpace(r)
}
