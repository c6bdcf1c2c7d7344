package digest

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/templates"
)

// textWidth is the width of the text part: a mail client's.
const textWidth = 72

// Message renders the digest as one mail: plain text of 72 columns and
// the same content as a self-contained HTML page, with the charts also
// attached as PNG files.
func (d *Digest) Message() answer.Answer {
	subject := fmt.Sprintf("perfbot %s: %s to %s", d.Title, d.From.UTC().Format("2006-01-02"), d.To.UTC().Format("2006-01-02"))
	text := d.Text()
	charts, err := d.Charts()
	if err != nil {
		text += "\n(charts could not be drawn: " + err.Error() + ")\n"
	}
	msg := answer.Answer{Subject: subject, Summary: d.Summary(), State: answer.StateSuccess}
	msg.Set(answer.Text, answer.Rendering{Full: text})
	msg.Set(answer.MarkdownGFM, answer.Rendering{Full: "```\n" + text + "```\n"})
	htm, err := d.HTMLWith(d.templateDir)
	if err != nil {
		htm = "<pre>" + template.HTMLEscapeString(text) + "</pre>"
	}
	msg.Set(answer.HTML, answer.Rendering{Full: htm})
	msg.Attachments = charts
	return msg
}

// Summary is the headline's counts in one line.
func (d *Digest) Summary() string {
	c := d.Counts
	return fmt.Sprintf("%s, %s, %d mixed in %s; %s on tracked branches",
		plural(c.Regressions, "regression"), plural(c.Improvements, "improvement"), c.Mixed,
		plural(c.Patches, "patch")+" measured", plural(c.ChangePoints, "change point"))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "ch") {
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func pct(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "%" }

func signedPct(v float64) string {
	s := pct(v)
	if v > 0 {
		s = "+" + s
	}
	return s
}

func short(commit string) string {
	if len(commit) > 10 {
		return commit[:10]
	}
	return commit
}

// size says how much a request moved: "2 benchmarks moved (1 worse,
// 1 mixed): mean +4.1%, max +8.3%".
func (r Request) SizeText() string {
	if r.Moved() == 0 {
		return "no benchmark moved"
	}
	var parts []string
	for _, p := range []struct {
		n    int
		word string
	}{{r.Worse, "worse"}, {r.Better, "better"}, {r.Mixed, "mixed"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.word))
		}
	}
	return fmt.Sprintf("%s moved (%s): mean %s, max %s", plural(r.Moved(), "benchmark"), strings.Join(parts, ", "),
		signedPct(r.MeanPct), signedPct(r.MaxPct))
}

// KindWord is the request's kind in capitals, for the text part.
func (r Request) KindWord() string { return strings.ToUpper(or(r.Kind, "no change")) }

// Headline is the digest's first paragraph: the counts.
func (d *Digest) Headline() string {
	c := d.Counts
	s := fmt.Sprintf("%s, %s and %d mixed among %s measured (%s). "+
		"Tracked branches: %s, %s stopped producing results, %s still open.",
		plural(c.Regressions, "regression"), plural(c.Improvements, "improvement"), c.Mixed, plural(c.Patches, "patch"),
		plural(c.BenchmarkChanges, "benchmark change"), plural(c.ChangePoints, "change point"),
		plural(c.Stopped, "benchmark"), plural(c.Open, "regression"))
	return s
}

// Text is the digest as plain text, 72 columns wide: a mail's text part.
// Texts from the history are folded onto one line each; nothing is markup.
func (d *Digest) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "perfbot %s, %s to %s\n\n", oneLine(d.Title), d.From.UTC().Format("2006-01-02 15:04"), d.To.UTC().Format("2006-01-02 15:04 MST"))
	b.WriteString(wrap(d.Headline(), "", ""))
	if d.Link != "" {
		b.WriteString("This digest on the web:\n  " + d.Link + "\n")
	}
	more := func(n int, what string) {
		if n > 0 {
			fmt.Fprintf(&b, "  ... and %d more %s", n, what)
			if d.Link != "" {
				b.WriteString(":\n  " + d.Link)
			}
			b.WriteString("\n")
		}
	}
	heading(&b, "Patches and pull requests")
	if len(d.Requests) == 0 {
		b.WriteString("  None moved a benchmark.\n")
	}
	for i, r := range d.Requests {
		if i > 0 {
			b.WriteString("\n")
		}
		writeRequest(&b, r)
	}
	more(d.MoreRequests, "that moved benchmarks")
	if len(d.Unmoved) > 0 {
		b.WriteString("\n  Measured without a significant change:\n")
		for _, r := range d.Unmoved {
			b.WriteString(wrap(r.Title, "  - ", "    "))
		}
		more(d.MoreUnmoved, "without change")
	}

	heading(&b, "Tracked branches")
	b.WriteString("Change points found\n")
	if len(d.Shifts) == 0 {
		b.WriteString("  none\n")
	}
	for _, s := range d.Shifts {
		writeShift(&b, s, "")
	}
	more(d.MoreShifts, "change points")
	b.WriteString("\nBenchmarks that stopped producing results\n")
	if len(d.Stopped) == 0 {
		b.WriteString("  none\n")
	}
	for _, s := range d.Stopped {
		b.WriteString(wrap(s.Label+" on "+s.Branch, "  - ", "    "))
	}
	more(d.MoreStopped, "benchmarks")
	b.WriteString("\nRegressions still open\n")
	if len(d.Open) == 0 {
		b.WriteString("  none\n")
	}
	for _, s := range d.Open {
		writeShift(&b, s, fmt.Sprintf(", open for %d runs", s.RunsSince))
	}
	more(d.MoreOpen, "open regressions")

	if d.Release != nil || d.ReleaseNote != "" {
		heading(&b, "Release candidate")
		if d.Release != nil {
			writeRequest(&b, *d.Release)
		} else {
			b.WriteString(wrap(d.ReleaseNote, "  ", "  "))
		}
	}
	return b.String()
}

func heading(b *strings.Builder, title string) {
	fmt.Fprintf(b, "\n%s\n%s\n", title, strings.Repeat("-", len(title)))
}

func writeRequest(b *strings.Builder, r Request) {
	b.WriteString(wrap(r.KindWord()+": "+r.Title, "", "  "))
	if r.Headline != "" {
		b.WriteString(wrap(r.Headline, "  ", "  "))
	}
	b.WriteString(wrap(r.SizeText(), "  ", "  "))
	if r.State != "" {
		b.WriteString(wrap("State: "+r.State, "  ", "    "))
	}
	if r.Thread != "" {
		b.WriteString("  Thread: " + oneLine(r.Thread) + "\n")
	}
	if r.RunPage != "" {
		b.WriteString("  Run:    " + r.RunPage + "\n")
	}
}

func writeShift(b *strings.Builder, s Shift, extra string) {
	word := "improvement"
	if s.Regression {
		word = "REGRESSION"
	}
	b.WriteString(wrap(fmt.Sprintf("%s %s on %s: %s%s, %s", word, s.Label, trackBranch(s.Track), signedPct(s.DeltaPct), extra,
		s.FoundByText()), "  ", "    "))
	line := fmt.Sprintf("    commits %s..%s", short(s.CommitBefore), short(s.Commit))
	if s.Spark != "" {
		line += "  " + s.Spark
	}
	b.WriteString(line + "\n")
	if s.RunPage != "" {
		b.WriteString("    " + s.RunPage + "\n")
	}
}

// FoundByText says which path found the change point: the commit's own
// run against its parent, the search of the branch's history, or both.
func (s Shift) FoundByText() string {
	switch s.FoundBy {
	case store.FoundByRun:
		return "found by the commit's run"
	case store.FoundByBoth:
		return "found by the commit's run and the history"
	}
	return "found in the history"
}

// wrap folds text (made one line first) to textWidth columns, the first
// line after first, the others after rest. A word longer than the line
// (an address) stays whole.
func wrap(text, first, rest string) string {
	var b strings.Builder
	line, prefix := "", first
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(prefix+line+" "+w) <= textWidth:
			line += " " + w
		default:
			b.WriteString(prefix + line + "\n")
			line, prefix = w, rest
		}
	}
	if line != "" {
		b.WriteString(prefix + line + "\n")
	}
	return b.String()
}

// htmlFuncs are the helpers the digest template may call.
var htmlFuncs = template.FuncMap{
	"signedPct": signedPct, "short": short, "trimRef": func(s string) string { return strings.TrimPrefix(s, "refs/heads/") },
	"branch": trackBranch, "plural": plural,
	"shiftOf": func(d *Digest, s Shift) shiftView { return shiftView{S: s, Chart: d.ChartOf(s.ID)} },
	"isURL":   func(s string) bool { return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") },
	"date":    func(t interface{ Format(string) string }) string { return t.Format("2006-01-02 15:04") },
}

// htmlTemplate parses the embedded templates/digest.tmpl, then
// dir/digest.tmpl when dir is given and holds one: its {{define
// "digest"}} replaces the default.
func htmlTemplate(dir string) (*template.Template, error) {
	base, err := fs.ReadFile(templates.FS, "digest.tmpl")
	if err != nil {
		return nil, fmt.Errorf("digest: embedded template: %w", err)
	}
	t, err := template.New("digest.tmpl").Funcs(htmlFuncs).Parse(string(base))
	if err != nil {
		return nil, fmt.Errorf("digest: template digest.tmpl: %w", err)
	}
	if dir == "" {
		return t, nil
	}
	path := filepath.Join(dir, "digest.tmpl")
	user, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, fmt.Errorf("digest: %w", err)
	}
	if _, err := t.New(path).Parse(string(user)); err != nil {
		return nil, fmt.Errorf("digest: template %s: %w", path, err)
	}
	return t, nil
}

// CheckTemplate parses dir's digest.tmpl over the embedded one and renders
// an empty digest with it, so that a broken template is found when the
// service starts, not when the digest is due. The error names the file
// and line.
func CheckTemplate(dir string) error {
	if dir == "" {
		return nil
	}
	t, err := htmlTemplate(dir)
	if err != nil {
		return err
	}
	if err := t.ExecuteTemplate(io.Discard, "digest", &Digest{Title: "check"}); err != nil {
		return fmt.Errorf("digest: %w", err)
	}
	return nil
}

// HTMLWith renders the digest with the templates of dir overriding the
// default (templates/digest.tmpl); a template that fails is an error.
func (d *Digest) HTMLWith(dir string) (string, error) {
	t, err := htmlTemplate(dir)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "digest", d); err != nil {
		return "", fmt.Errorf("digest: rendering: %w", err)
	}
	return b.String(), nil
}

// HTML is the digest as a self-contained HTML page; every value from the
// history is escaped.
func (d *Digest) HTML() string {
	out, err := d.HTMLWith("")
	if err != nil {
		return "<pre>" + template.HTMLEscapeString(d.Text()) + "</pre>"
	}
	return out
}

// shiftView is a change point with its chart, for the template.
type shiftView struct {
	S     Shift
	Chart template.HTML
}
