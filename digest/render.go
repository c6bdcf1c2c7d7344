package digest

import (
	"bytes"
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/perfbot/perfbot/review"
)

// Message renders the digest as one mail: plain text with aligned columns
// and the same content as HTML.
func (d *Digest) Message() review.Message {
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
	msg := review.Message{
		Subject: subject, Summary: summary, State: review.StateSuccess,
		Text: text, Markdown: "```\n" + text + "```\n", HTML: d.HTML(),
	}
	charts, err := d.Charts()
	if err != nil {
		msg.Text += "\n(charts could not be drawn: " + err.Error() + ")\n"
	}
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

var htmlTemplate = template.Must(template.New("digest").Funcs(template.FuncMap{
	"signedPct": signedPct, "short": short, "trimRef": func(s string) string { return strings.TrimPrefix(s, "refs/heads/") },
	"isURL": func(s string) bool { return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") },
	"date":  func(t interface{ Format(string) string }) string { return t.Format("2006-01-02 15:04") },
}).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>perfbot {{.Title}}</title></head>
<body style="font-family: sans-serif">
<h2>perfbot {{.Title}}, {{date .From}} to {{date .To}} UTC</h2>
<h3>Tracked branches</h3>
{{if .Branch}}<table border="1" cellpadding="4" cellspacing="0">
<tr><th>Branch</th><th>Benchmark</th><th>Change</th><th>Verdict</th><th>Commits</th><th>Thread</th></tr>
{{range .Branch}}<tr><td>{{trimRef .CandidateRef}}</td><td>{{.Benchmark}}{{with .Params.String}}/{{.}}{{end}} ({{with .Metric}}{{.}} {{end}}{{.Unit}})</td><td align="right">{{signedPct .DeltaPct}}</td><td style="color: {{if eq .Verdict "better"}}green{{else}}red{{end}}">{{.Verdict}}</td><td><code>{{short .BaseCommit}}..{{short .CandCommit}}</code></td><td>{{if isURL .Link}}<a href="{{.Link}}">thread</a>{{else if .Link}}<code>{{.Link}}</code>{{else}}-{{end}}</td></tr>
{{end}}</table>{{else}}<p>No significant change.</p>{{end}}
{{if or .Release .ReleaseNote}}<h3>Release candidate</h3>
{{with .Release}}<p>{{.Run.CandidateRef}} against {{.Run.BaseRef}}: {{.Better}} better, {{.Worse}} worse{{if isURL .Link}} (<a href="{{.Link}}">thread</a>){{else if .Link}} (<code>{{.Link}}</code>){{end}}</p>{{else}}<p>{{.ReleaseNote}}</p>{{end}}{{end}}
<h3>Patches measured</h3>
{{if .Patches}}<table border="1" cellpadding="4" cellspacing="0">
<tr><th>Request</th><th>Better</th><th>Worse</th><th>Thread</th></tr>
{{range .Patches}}<tr><td>{{.Run.Venue}}:{{.Run.Target}}</td><td align="right">{{.Better}}</td><td align="right">{{.Worse}}</td><td>{{if isURL .Link}}<a href="{{.Link}}">thread</a>{{else if .Link}}<code>{{.Link}}</code>{{else}}-{{end}}</td></tr>
{{end}}</table>{{else}}<p>None.</p>{{end}}
</body></html>
`))

// HTML is the digest as a self-contained HTML page; every value from the
// history is escaped.
func (d *Digest) HTML() string {
	var b bytes.Buffer
	if err := htmlTemplate.Execute(&b, d); err != nil {
		return "<pre>" + template.HTMLEscapeString(d.Text()) + "</pre>"
	}
	return b.String()
}
