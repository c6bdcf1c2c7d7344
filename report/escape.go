package report

import (
	"regexp"
	"strings"
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
var reviewBoardBug = regexp.MustCompile(`(?i)\b(bug)(\s*\d)`)

// ReviewBoardEscape makes untrusted text safe in Review Board Markdown: no
// formatting, link, auto-linked bug or review request ("bug 234", "/r/583"),
// emoji shortcode or table split.
func ReviewBoardEscape(s string) string {
	s = reviewBoardEscaper.Replace(oneLine(s))
	return reviewBoardBug.ReplaceAllString(s, "${1}"+zwsp+"${2}")
}

// jiraEscaper escapes text for JIRA wiki markup with numeric character
// references, which the renderer shows as the characters themselves:
// nothing starts a macro ({html}, {color}), a link or mention ([x|url],
// [~user]), a table cell, a text effect, an emoticon or an image.
var jiraEscaper = strings.NewReplacer(
	"&", "&#38;", "\\", "&#92;", "{", "&#123;", "}", "&#125;", "[", "&#91;", "]", "&#93;", "|", "&#124;",
	"*", "&#42;", "_", "&#95;", "+", "&#43;", "-", "&#45;", "^", "&#94;", "~", "&#126;", "?", "&#63;",
	"!", "&#33;", "#", "&#35;", "@", "&#64;", ":", "&#58;", "(", "&#40;", ")", "&#41;", ";", "&#59;",
	"<", "&lt;", ">", "&gt;", "\n", " ", "\r", " ", "\t", " ",
)

// JIRAEscape makes untrusted text safe in JIRA wiki markup.
func JIRAEscape(s string) string { return jiraEscaper.Replace(oneLine(s)) }

// jiraNoformat keeps a log from closing the {noformat} block it sits in.
func jiraNoformat(s string) string {
	return noformatTag.ReplaceAllString(s, "{ ${1}")
}

var noformatTag = regexp.MustCompile(`(?i)\{(noformat|code)`)

// textEscape keeps untrusted text on one line and out of the column
// layout's way: control characters and tabs become spaces.
func textEscape(s string) string { return oneLine(s) }
