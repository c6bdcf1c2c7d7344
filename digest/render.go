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
	"text/tabwriter"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/templates"
)

// Message renders the digest as one mail: plain text with aligned columns
// and the same content as HTML.
func (d *Digest) Message() answer.Answer {
	subject := fmt.Sprintf("perfbot %s: %s to %s", d.Title, d.From.UTC().Format("2006-01-02"), d.To.UTC().Format("2006-01-02"))
	better, worse := 0, 0
	for _, c := range d.Branch {
		if c.Verdict == "better" {
			better++
		} else {
			worse++
		}
	}
	summary := fmt.Sprintf("%d better, %d worse on tracked branches; %d patches measured", better, worse, len(d.Patches))
	text := d.Text()
	charts, err := d.Charts()
	if err != nil {
		text += "\n(charts could not be drawn: " + err.Error() + ")\n"
	}
	msg := answer.Answer{Subject: subject, Summary: summary, State: answer.StateSuccess}
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

func (c Change) name() string {
	n := c.Benchmark
	if p := c.Params.String(); p != "" {
		n += "/" + p
	}
	unit := c.Unit
	if c.Metric != "" {
		unit = c.Metric + " " + unit
	}
	return n + " (" + unit + ")"
}

func (p Patch) title() string {
	t := p.Run.Target
	if t == "" {
		t = p.Run.JobKey
	} else {
		t = p.Run.Venue + ":" + t
	}
	return t
}

// Text is the digest as plain text.
func (d *Digest) Text() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "perfbot %s, %s to %s\n\n", d.Title, d.From.UTC().Format("2006-01-02 15:04"), d.To.UTC().Format("2006-01-02 15:04 MST"))
	b.WriteString("Tracked branches\n")
	if len(d.Branch) == 0 {
		b.WriteString("  no significant change\n")
	} else {
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  BRANCH\tBENCHMARK\tCHANGE\tVERDICT\tCOMMITS\tTHREAD")
		for _, c := range d.Branch {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s..%s\t%s\n", strings.TrimPrefix(c.CandidateRef, "refs/heads/"), c.name(),
				signedPct(c.DeltaPct), c.Verdict, short(c.BaseCommit), short(c.CandCommit), or(c.Link, "-"))
		}
		tw.Flush()
	}
	if d.Release != nil || d.ReleaseNote != "" {
		b.WriteString("\nRelease candidate\n")
		if d.Release != nil {
			fmt.Fprintf(&b, "  %s against %s: %d better, %d worse  %s\n", d.Release.Run.CandidateRef, d.Release.Run.BaseRef,
				d.Release.Better, d.Release.Worse, d.Release.Link)
		} else {
			fmt.Fprintf(&b, "  %s\n", d.ReleaseNote)
		}
	}
	b.WriteString("\nPatches measured\n")
	if len(d.Patches) == 0 {
		b.WriteString("  none\n")
	} else {
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  REQUEST\tBETTER\tWORSE\tTHREAD")
		for _, p := range d.Patches {
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\n", p.title(), p.Better, p.Worse, or(p.Link, "-"))
		}
		tw.Flush()
	}
	return b.String()
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// htmlFuncs are the helpers the digest template may call.
var htmlFuncs = template.FuncMap{
	"signedPct": signedPct, "short": short, "trimRef": func(s string) string { return strings.TrimPrefix(s, "refs/heads/") },
	"isURL": func(s string) bool { return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") },
	"date":  func(t interface{ Format(string) string }) string { return t.Format("2006-01-02 15:04") },
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
