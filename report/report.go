// Package report renders a comparison for people and programs: GitHub
// Markdown, Review Board Markdown, JIRA wiki markup, plain text with aligned
// columns, self-contained HTML for mail, and JSON. It also builds the
// answer.Answer a venue client posts (Message) and the charts sent with it
// (Charts).
//
// The layout comes from templates (package templates, one file per venue,
// one {{define}} per shape of table) that a user folder may override. Every
// string that came from a benchmark, a patch or a log is escaped for the
// markup it lands in: no mention, no issue link, no macro, no link, no HTML.
package report

import (
	"github.com/perfbot/perfbot/internal/safetext"

	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
)

// Formats lists the formats that perfbot writes to report files by default.
// Render knows more: see AllFormats.
var Formats = []string{"text", "markdown", "jira", "json"}

// AllFormats lists every format Render knows.
var AllFormats = []string{"text", "markdown", "reviewboard", "jira", "html", "json"}

// FileName is the file a format is saved as: "report.md" for markdown.
func FileName(format string) string {
	switch format {
	case "text", "":
		return "report.txt"
	case "markdown", "md":
		return "report.md"
	case "reviewboard", "rb":
		return "report.rb.md"
	case "jira":
		return "report.jira"
	case "html":
		return "report.html"
	case "json":
		return "report.json"
	}
	return "report." + format
}

// Options control a rendering.
type Options struct {
	// TemplateDir is a folder whose templates override the embedded ones:
	// DIR/<venue>.tmpl and DIR/<venue>/*.tmpl, where venue is markdown,
	// reviewboard, jira, text or html. Each {{define}} there replaces the
	// default block of the same name.
	TemplateDir string
	// SweepParams name the parameters that pivot into a sweep when they
	// alone vary between a benchmark's rows; nil means DefaultSweepParams(),
	// an empty non-nil slice turns sweeps off.
	SweepParams []string
	// Key is the stable key of the answer, copied into Message.Key.
	Key string
	// Limits is the room, in characters, the venues that will post the
	// answer give each format (the smallest limit among them); Message
	// fits each format's Short rendering to it. A format without a limit
	// gets a Short rendering with every changed row.
	Limits map[answer.Format]int
	// NoCharts leaves the charts out of Message.
	NoCharts bool
	// noDetails leaves out Document.Details, for a rendering that does
	// not show them (the embedded plain-text template).
	noDetails bool
}

// Render writes cmp to w in the named format with the default templates.
func Render(w io.Writer, format string, cmp *compare.Comparison) error {
	return RenderWith(w, format, cmp, Options{})
}

// RenderWith writes cmp to w in the named format.
func RenderWith(w io.Writer, format string, cmp *compare.Comparison, opts Options) error {
	if format == "json" {
		return JSON(w, cmp)
	}
	v, err := venueOf(format)
	if err != nil {
		return err
	}
	set, err := loadTemplates(v, opts.TemplateDir)
	if err != nil {
		return err
	}
	// The embedded plain text shows no details tables: a large
	// comparison's are most of its document, let them go once summed up.
	opts.noDetails = v == venueText && opts.TemplateDir == ""
	doc := build(cmp, opts)
	if v == venueMarkdown && doc.Rows > collapseRows {
		doc.Collapse = true
		doc.ChangedSections = shortDoc(doc, -1).Sections
	}
	if opts.TemplateDir != "" {
		// A user's template may fail half way: render it whole first,
		// so that a failure writes nothing.
		out, err := set.render(doc)
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, out)
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := set.renderTo(bw, doc); err != nil {
		return err
	}
	return bw.Flush()
}

// collapseRows is the row count above which GitHub Markdown folds the full
// tables into a <details> section below the changed rows.
const collapseRows = 40

// SummaryLine is the one-line verdict for every candidate, such as
// "patch vs base: 1 better, 0 worse, 3 same, 0 noisy".
func SummaryLine(cmp *compare.Comparison) string {
	var parts []string
	for _, t := range cmp.Summary {
		s := fmt.Sprintf("%s vs %s: %d better, %d worse, %d same, %d noisy", t.Variant, cmp.Base, t.Better, t.Worse, t.Same, t.Noisy)
		if t.Added > 0 || t.Removed > 0 {
			s += fmt.Sprintf(" (%d added, %d removed)", t.Added, t.Removed)
		}
		s += instrumentSummary(cmp, t.Variant)
		parts = append(parts, s)
	}
	if len(cmp.Failures) > 0 {
		var fs []string
		for _, f := range cmp.Failures {
			fs = append(fs, f.Variant+" "+f.Stage)
		}
		parts = append(parts, "FAILED: "+strings.Join(fs, ", "))
	}
	if len(parts) == 0 {
		return "nothing compared"
	}
	if note := autoInstrumentNote(cmp); note != "" {
		parts = append(parts, note)
	}
	if note := noisyHostNote(cmp); note != "" {
		parts = append(parts, note)
	}
	return oneLine(strings.Join(parts, "; "))
}

// oneLine folds line breaks and other control characters into spaces.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, s)
}

// isControl reports whether r is a control character, a line or
// paragraph separator, or a bidirectional formatting character (which can
// make quoted text read in another order than it is written).
func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' || safetext.IsBidi(r)
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
