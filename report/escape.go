package report

import (
	"strings"
)

// markdownEscaper escapes text for GitHub-flavoured Markdown inside a table
// cell: HTML is neutralized, Markdown punctuation loses its meaning, pipes do
// not split the cell, and "@name" and "#123" do not mention or link.
var markdownEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", "\"", "&quot;",
	"\\", "\\\\", "`", "\\`", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]",
	"(", "\\(", ")", "\\)", "|", "\\|", "~", "\\~", "!", "\\!",
	"@", "@\u200b", "#", "#\u200b", ":", "\\:",
	"\n", " ", "\r", " ",
)

// MarkdownEscape makes untrusted text safe in GitHub and Review Board
// Markdown.
func MarkdownEscape(s string) string { return markdownEscaper.Replace(s) }

// jiraEscaper escapes text for JIRA wiki markup: every character that
// starts a macro, link, table cell or text effect is backslash-escaped.
var jiraEscaper = strings.NewReplacer(
	"\\", "\\\\", "{", "\\{", "}", "\\}", "[", "\\[", "]", "\\]", "|", "\\|",
	"*", "\\*", "_", "\\_", "+", "\\+", "-", "\\-", "^", "\\^", "~", "\\~",
	"?", "\\?", "!", "\\!", "#", "\\#", "@", "@\u200b",
	"\n", " ", "\r", " ",
)

// JIRAEscape makes untrusted text safe in JIRA wiki markup.
func JIRAEscape(s string) string { return jiraEscaper.Replace(s) }
