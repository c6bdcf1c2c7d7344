package track

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/texttable"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/store"
)

// WriteText prints change points as an aligned table, in the order given.
func WriteText(w io.Writer, cps []store.ChangePoint) error {
	if len(cps) == 0 {
		_, err := fmt.Fprintln(w, "no change points")
		return err
	}
	t := texttable.New(w, "FOUND", "TRACK", "BENCHMARK", "PARAMS", "COMMITS", "BEFORE", "AFTER", "CHANGE", "P", "BY")
	for _, c := range cps {
		params := c.Params.String()
		if params == "" {
			params = "-"
		}
		t.Row(c.Found.Format("2006-01-02 15:04"), oneLine(c.Track), oneLine(c.Benchmark), oneLine(params),
			short(c.CommitBefore)+".."+short(c.Commit),
			centre(c.Before, c.BeforeLo, c.BeforeHi, c.NBefore, c.Unit, c.Metric),
			centre(c.After, c.AfterLo, c.AfterHi, c.NAfter, c.Unit, c.Metric),
			fmt.Sprintf("%+.1f%%", c.DeltaPct), fmt.Sprintf("%.2g", c.P), foundBy(c.FoundBy))
	}
	return t.Flush()
}

// WriteJSON prints change points as a JSON array.
func WriteJSON(w io.Writer, cps []store.ChangePoint) error {
	if cps == nil {
		cps = []store.ChangePoint{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(cps)
}

// foundBy names the path that found a change point; stored ones from
// before the paths existed were the history's.
func foundBy(by string) string {
	if by == "" {
		return store.FoundByHistory
	}
	return oneLine(by)
}

// foundByText says in words how a change point was found.
func foundByText(by string) string {
	switch by {
	case store.FoundByRun:
		return "the commit's own run against its parent (at once)"
	case store.FoundByBoth:
		return "the commit's own run against its parent, then the branch's history"
	}
	return "the branch's history"
}

func centre(v, lo, hi float64, n int, unit, metric string) string {
	u := unit
	if metric != "" {
		u = metric + " " + unit
	}
	return fmt.Sprintf("%s %s [%s, %s] (%d)", num(v), oneLine(u), num(lo), num(hi), n)
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// oneLine keeps a hostile name on one line of a table.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 32 || r == 127 {
			return ' '
		}
		return r
	}, s)
}

// Message is the announcement of a change point that no reviewed patch
// announced, for the track's post targets. Its key is stable, so a venue
// that edits in place edits it instead of posting again.
func Message(c store.ChangePoint) answer.Answer {
	params := c.Params.String()
	name := c.Benchmark
	if params != "" {
		name += " " + params
	}
	where := fmt.Sprintf("%s..%s", short(c.CommitBefore), short(c.Commit))
	u := c.Unit
	if c.Metric != "" {
		u = c.Metric + " " + c.Unit
	}
	line := fmt.Sprintf("%+.1f%% %s in %s", c.DeltaPct, u, where)
	before := centre(c.Before, c.BeforeLo, c.BeforeHi, c.NBefore, c.Unit, c.Metric)
	after := centre(c.After, c.AfterLo, c.AfterHi, c.NAfter, c.Unit, c.Metric)
	text := fmt.Sprintf("Change point on %s\n\nbenchmark: %s\ncommits:   %s (last before .. first after)\nbefore:    %s\nafter:     %s\nchange:    %+.1f%% (p = %.2g, smallest change reported %.1f%%)\nfound by:  %s\n",
		oneLine(c.Track), oneLine(name), where, before, after, c.DeltaPct, c.P, c.MinChangePct, foundByText(c.FoundBy))
	md := fmt.Sprintf("**Change point** on `%s`: %s **%+.1f%%** (%s)\n\n| | commit | centre (commits) |\n|---|---|---|\n| before | `%s` | %s |\n| after | `%s` | %s |\n\np = %.2g; changes under %.1f%% are not reported. Found by %s.\n",
		report.MarkdownEscape(strings.ReplaceAll(c.Track, "`", "'")), report.MarkdownEscape(name), c.DeltaPct,
		report.MarkdownEscape(u), short(c.CommitBefore), report.MarkdownEscape(before), short(c.Commit),
		report.MarkdownEscape(after), c.P, c.MinChangePct, foundByText(c.FoundBy))
	jira := fmt.Sprintf("*Change point* on %s: %s *%+.1f%%* (%s)\n||before||after||\n|%s: %s|%s: %s|\n",
		report.JIRAEscape(c.Track), report.JIRAEscape(name), c.DeltaPct, report.JIRAEscape(u),
		short(c.CommitBefore), report.JIRAEscape(before), short(c.Commit), report.JIRAEscape(after))
	a := answer.Answer{
		Key:     fmt.Sprintf("changepoint-%d", c.ID),
		Subject: oneLine(fmt.Sprintf("perfbot: %s %s", name, line)),
		Summary: oneLine(name + ": " + line),
		State:   answer.StateSuccess,
	}
	a.Set(answer.MarkdownGFM, answer.Rendering{Full: md})
	a.Set(answer.MarkdownRB, answer.Rendering{Full: md})
	a.Set(answer.JIRAWiki, answer.Rendering{Full: jira})
	a.Set(answer.Text, answer.Rendering{Full: text})
	a.Set(answer.HTML, answer.Rendering{Full: "<pre>" + html.EscapeString(text) + "</pre>"})
	return a
}
