package report

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// zwsp is a zero-width space: invisible, yet it keeps "@name", "#123",
// "www." and "http://" from being recognized as a mention, an issue
// reference or a link.
const zwsp = "\u200b"

// markdownEscaper escapes text for GitHub-flavoured Markdown outside code:
// HTML is neutralized, Markdown punctuation loses its meaning, pipes do not
// split a table cell, and mentions, issue references, emoji shortcodes and
// bare links are broken up with a zero-width space (GitHub finds those in
// the rendered text, after backslash escapes are gone).
var markdownEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", "\"", "&quot;",
	"\\", "\\\\", "`", "\\`", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]",
	"(", "\\(", ")", "\\)", "|", "\\|", "~", "\\~", "!", "\\!", "{", "\\{", "}", "\\}",
	"@", "@"+zwsp, "#", "#"+zwsp, ":", ":"+zwsp, "www.", "www"+zwsp+".",
	"\n", " ", "\r", " ", "\t", " ",
)

// MarkdownEscape makes untrusted text safe in GitHub Markdown, in running
// text and in table cells.
func MarkdownEscape(s string) string { return markdownEscaper.Replace(oneLine(s)) }

// MarkdownCode makes untrusted text an inline code span, the cleanest
// defence in GitHub Markdown: nothing inside a code span mentions, links or
// renders as HTML. The fence is longer than any run of backticks in s, and
// pipes are escaped so that a table cell holds.
func MarkdownCode(s string) string {
	s = oneLine(s)
	if s == "" {
		return ""
	}
	// A backslash right before a pipe would escape the pipe's escape.
	s = strings.ReplaceAll(s, "\\|", "\\"+zwsp+"|")
	s = strings.ReplaceAll(s, "|", "\\|")
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// codeFence returns a backtick fence for a code block holding s: longer than
// any run of backticks in s, so that s cannot close it.
func codeFence(s string) string {
	return strings.Repeat("`", max(3, longestRun(s, '`')+1))
}

func longestRun(s string, c rune) int {
	longest, run := 0, 0
	for _, r := range s {
		if r == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// reviewBoardEscaper escapes text for Review Board's Markdown: the
// characters its documentation lists as backslash-escapable, plus the
// table pipe. Review Board shows raw HTML as text, so angle brackets stay.
var reviewBoardEscaper = strings.NewReplacer(
	"\\", "\\\\", "`", "\\`", "*", "\\*", "_", "\\_", "{", "\\{", "}", "\\}", "[", "\\[", "]", "\\]",
	"(", "\\(", ")", "\\)", "#", "\\#", "+", "\\+", "-", "\\-", ".", "\\.", "!", "\\!", "|", "\\|",
	">", "\\>", "@", "@"+zwsp, ":", ":"+zwsp, "/r/", "/r"+zwsp+"/",
	"\n", " ", "\r", " ", "\t", " ",
)

// reviewBoardBug matches Review Board's bug auto-links ("bug 234").
var reviewBoardBug = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(bug)(\s*\d)`) })

// ReviewBoardEscape makes untrusted text safe in Review Board Markdown: no
// formatting, link, auto-linked bug or review request ("bug 234", "/r/583"),
// emoji shortcode or table split.
func ReviewBoardEscape(s string) string {
	s = reviewBoardEscaper.Replace(oneLine(s))
	return reviewBoardBug().ReplaceAllString(s, "${1}"+zwsp+"${2}")
}

// JIRAEscape makes untrusted text safe in JIRA wiki markup while leaving
// it readable where it is quoted or edited: only what the wiki renderer
// would read as markup becomes a numeric character reference, which the
// renderer shows as the character itself.
//
//   - always: the macro, link and table characters { } [ ] |, the image
//     and escape characters ! and \, and < > (HTML);
//   - & when it could start a character reference (&#..., &name);
//   - the text effects * _ + - ^ ~ only where they could open or close one:
//     at a word's edge ("*bold*", "-struck-", "+under+"), not inside a word
//     ("Append-2", "write_ahead", "1e+9"); and "--" (a dash), "??"
//     (a citation);
//   - the colon of "://" and "mailto:" (auto-links), a leading "#", "*" or
//     "-" (list items) and the emoticons ":)", ";)", ":P", "(y)", "(/)",
//     "(x)", "(!)", "(on)" and the like.
func JIRAEscape(s string) string {
	s = oneLine(s)
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	for i, r := range rs {
		if e, ok := jiraEscapeRune(rs, i); ok {
			b.WriteString(e)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// jiraEscapeRune is the escape of rs[i], if it needs one.
func jiraEscapeRune(rs []rune, i int) (string, bool) {
	r := rs[i]
	prev, next := rune(' '), rune(' ')
	if i > 0 {
		prev = rs[i-1]
	}
	if i+1 < len(rs) {
		next = rs[i+1]
	}
	ref := func() (string, bool) { return "&#" + strconv.Itoa(int(r)) + ";", true }
	switch r {
	case '{', '}', '[', ']', '|', '!', '\\':
		return ref()
	case '<':
		return "&lt;", true
	case '>':
		return "&gt;", true
	case '\n', '\r', '\t':
		return " ", true
	case '&':
		if next == '#' || unicode.IsLetter(next) {
			return ref()
		}
	case '*', '_', '+', '-', '^', '~':
		if i == 0 && (r == '*' || r == '-') {
			return ref() // a list item at a line's start
		}
		opens := !isWordRune(prev) && !unicode.IsSpace(next) && i+1 < len(rs)
		closes := !unicode.IsSpace(prev) && i > 0 && !isWordRune(next)
		if opens || closes || (r == '-' && (prev == '-' || next == '-')) {
			return ref()
		}
	case '?':
		if prev == '?' || next == '?' {
			return ref()
		}
	case '#':
		if i == 0 {
			return ref()
		}
	case ':':
		if strings.HasPrefix(string(rs[i+1:]), "//") || strings.HasSuffix(strings.ToLower(string(rs[:i])), "mailto") {
			return ref()
		}
		if strings.ContainsRune(")(PpDdOo|", next) {
			return ref() // :) :( :P :D :o
		}
	case ';':
		if next == ')' {
			return ref()
		}
	case '(':
		if jiraEmoticon(rs[i:]) {
			return ref()
		}
	}
	return "", false
}

// jiraNumber escapes a number perfbot formatted ("+12.86%", "-97.47%",
// "+8 B/op") as JIRAEscape does but keeps its leading sign: a sign before
// a digit opens no text effect that a closing mark in the same cell could
// end, since perfbot's numbers hold none.
func jiraNumber(s string) string {
	out := JIRAEscape(s)
	for _, ref := range []string{"&#43;", "&#45;"} {
		if rest, ok := strings.CutPrefix(out, ref); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			out = map[string]string{"43": "+", "45": "-"}[ref[2:4]] + rest
		}
	}
	if out == "" {
		return " "
	}
	return out
}

// jiraSignedNumber matches the escaped sign of a number at a word's start.
var jiraSignedNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^| )&#(43|45);([0-9])`) })

// jiraHeadline escapes a headline, which mixes untrusted benchmark names
// with perfbot's signed numbers ("Append -97% time, +8 B/op"), and keeps
// the numbers' signs: a sign can only open a text effect, never close one,
// and every mark in a name that could close one stays escaped.
func jiraHeadline(s string) string {
	return jiraSignedNumber().ReplaceAllStringFunc(JIRAEscape(s), func(m string) string {
		sub := jiraSignedNumber().FindStringSubmatch(m)
		sign := "+"
		if sub[2] == "45" {
			sign = "-"
		}
		return sub[1] + sign + sub[3]
	})
}

// jiraEmoticons are JIRA's bracketed emoticons, without the brackets.
var jiraEmoticons = []string{"y", "n", "i", "/", "x", "!", "+", "-", "?", "on", "off", "*", "*r", "*g", "*b", "*y", "flag", "flagoff"}

// jiraEmoticon reports whether rs starts with a bracketed emoticon, "(y)".
func jiraEmoticon(rs []rune) bool {
	for _, e := range jiraEmoticons {
		if len(rs) >= len(e)+2 && strings.EqualFold(string(rs[1:len(e)+1]), e) && rs[len(e)+1] == ')' {
			return true
		}
	}
	return false
}

// isWordRune reports whether r belongs to a word, for JIRA's text effects.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// jiraNoformat keeps a log from closing the {noformat} block it sits in.
func jiraNoformat(s string) string {
	return noformatTag().ReplaceAllString(s, "{ ${1}")
}

var noformatTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\{(noformat|code)`) })

// textEscape keeps untrusted text on one line and out of the column
// layout's way: control characters and tabs become spaces.
func textEscape(s string) string { return oneLine(s) }
