package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/provenance"
)

// bigComparison builds rows×len(candidates) cells directly, every seventh
// better and every eleventh worse, as a suite of many benchmarks would.
func bigComparison(rows int, candidates ...string) *compare.Comparison {
	cmp := &compare.Comparison{Base: "base", Candidates: candidates}
	for i := range rows {
		row := compare.Row{
			Benchmark: fmt.Sprintf("BenchmarkStore%d", i/20), Group: "example.org/store",
			Params: bench.Params{{Name: "size", Value: fmt.Sprint(1 << (i % 20))}},
			Unit:   "ns/op", Better: bench.LowerIsBetter,
			Base: &compare.Cell{Center: 1000 + float64(i), Lo: 990 + float64(i), Hi: 1010 + float64(i), N: 10,
				Samples: []float64{1000 + float64(i)}},
		}
		for _, v := range candidates {
			c := compare.Candidate{Variant: v, Cell: compare.Cell{Center: 1000 + float64(i), Lo: 990 + float64(i), Hi: 1010 + float64(i), N: 10,
				Samples: []float64{1000 + float64(i)}}, P: 0.5, Alpha: 0.05, Verdict: compare.Same, Test: compare.TestMannWhitney}
			switch {
			case i%7 == 0:
				c.Center, c.Verdict, c.P, c.Significant = c.Center*0.8, compare.Better, 0.001, true
			case i%11 == 0:
				c.Center, c.Verdict, c.P, c.Significant = c.Center*1.2, compare.Worse, 0.002, true
			}
			c.Ratio = c.Center / row.Base.Center
			c.DeltaPct = (c.Ratio - 1) * 100
			row.Candidates = append(row.Candidates, c)
		}
		cmp.Rows = append(cmp.Rows, row)
	}
	for _, v := range candidates {
		t := compare.Tally{Variant: v}
		for _, r := range cmp.Rows {
			for _, c := range r.Candidates {
				if c.Variant != v {
					continue
				}
				switch c.Verdict {
				case compare.Better:
					t.Better++
				case compare.Worse:
					t.Worse++
				default:
					t.Same++
				}
			}
		}
		cmp.Summary = append(cmp.Summary, t)
	}
	cmp.Provenance.Sides = []provenance.Side{{Variant: "base", Commit: "0123456789abcdef"}, {Variant: candidates[0], PatchSubject: "store: faster lookups"}}
	return cmp
}

func TestMessageSeeds(t *testing.T) {
	tests := []struct {
		seed, subject string
		state         answer.State
	}{
		{"aurora-getjobkeys", "perfbot: AURORA-1847 Eliminate sequential scan in MemTaskStore.getJobKeys(): 3 better, 0 worse", answer.StateSuccess},
		{"hbase-cache", "perfbot: offheap vs onheap: 0 better, 0 worse", answer.StateSuccess},
		{"hbase-ycsb", "perfbot: 0.98.8RC1 vs 0.98.0: 21 better, 7 worse", answer.StateFailure},
	}
	for _, tc := range tests {
		t.Run(tc.seed, func(t *testing.T) {
			cmp, sc := loadSeed(t, tc.seed)
			msg, err := Message(cmp, Options{Key: "job-1"})
			if err != nil {
				t.Fatal(err)
			}
			if msg.Key != "job-1" || msg.Subject != tc.subject || msg.State != tc.state || msg.Summary != SummaryLine(cmp) {
				t.Errorf("key %q subject %q state %q summary %q", msg.Key, msg.Subject, msg.State, msg.Summary)
			}
			for name, body := range map[string]string{"Markdown": msg.Full(answer.MarkdownGFM), "ShortMarkdown": msg.Short(answer.MarkdownGFM),
				"ReviewBoardMarkdown": msg.Full(answer.MarkdownRB), "JIRA": msg.Full(answer.JIRAWiki), "ShortJIRA": msg.Short(answer.JIRAWiki), "Text": msg.Full(answer.Text), "HTML": msg.Full(answer.HTML)} {
				if body == "" {
					t.Errorf("%s is empty", name)
				}
			}
			// the short forms keep the changed rows' figures
			if tc.seed == "aurora-getjobkeys" {
				for _, want := range sc.Expect[:2] {
					if !strings.Contains(msg.Short(answer.MarkdownGFM), want) || !strings.Contains(msg.Short(answer.JIRAWiki), want) {
						t.Errorf("short forms lack %q", want)
					}
				}
			}
			var names []string
			for _, a := range msg.Attachments {
				names = append(names, a.Name)
				if a.Name == ResultsAttachment && !json.Valid(a.Data) {
					t.Errorf("%s is not JSON", a.Name)
				}
				if a.ContentType == "image/png" {
					if _, err := png.Decode(bytes.NewReader(a.Data)); err != nil {
						t.Errorf("%s: %v", a.Name, err)
					}
					if !a.Inline || !strings.Contains(msg.Full(answer.HTML), "cid:"+a.Name) {
						t.Errorf("chart %s is not shown inline by the HTML part", a.Name)
					}
				}
			}
			if !strings.Contains(strings.Join(names, " "), ".png") || !strings.Contains(strings.Join(names, " "), ResultsAttachment) {
				t.Errorf("attachments = %v, want charts and results", names)
			}
		})
	}
}

func TestMessageStates(t *testing.T) {
	empty := &compare.Comparison{Base: "base", Candidates: []string{"patch"},
		Failures: []provenance.Failure{{Variant: "patch", Stage: "build", Message: "exit status 2", LogTail: "wal.go:3: undefined: x"}}}
	msg, err := Message(empty, Options{NoCharts: true})
	if err != nil {
		t.Fatal(err)
	}
	if msg.State != answer.StateError || !strings.Contains(msg.Subject, "FAILED (patch build)") {
		t.Errorf("state %q subject %q", msg.State, msg.Subject)
	}
	if !strings.Contains(msg.Full(answer.MarkdownGFM), "undefined: x") || !strings.Contains(msg.Full(answer.JIRAWiki), "{noformat}") {
		t.Errorf("the failure's log is missing:\n%s", msg.Full(answer.MarkdownGFM))
	}
}

// TestMessageLimits checks that the short forms fit GitHub's and JIRA's
// comment limits however many rows change, keep the summary line first and
// say how many rows they left out.
func TestMessageLimits(t *testing.T) {
	cmp := bigComparison(10000, "patch")
	// The comment limits of GitHub and JIRA, as venue/post.Limits gives them.
	const gitHubCommentLimit, jiraCommentLimit = 65536, 32767
	msg, err := Message(cmp, Options{NoCharts: true, Limits: map[answer.Format]int{
		answer.MarkdownGFM: gitHubCommentLimit, answer.JIRAWiki: jiraCommentLimit}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, body string
		limit      int
	}{
		{"ShortMarkdown", msg.Short(answer.MarkdownGFM), gitHubCommentLimit},
		{"ShortJIRA", msg.Short(answer.JIRAWiki), jiraCommentLimit},
	} {
		n := utf8.RuneCountInString(tc.body)
		if n > tc.limit-limitMargin {
			t.Errorf("%s has %d characters, limit %d", tc.name, n, tc.limit)
		}
		if lines := strings.SplitN(tc.body, "\n", 6); len(lines) < 5 || !strings.Contains(lines[0], "perfbot: ") || !strings.Contains(strings.Join(lines[1:5], "\n"), "patch vs base") {
			t.Errorf("%s does not start with the headline and the summary: %.300q", tc.name, tc.body)
		}
		if !strings.Contains(tc.body, "changed rows cut to fit the size limit") || !strings.Contains(tc.body, "of 10000 rows shown") {
			t.Errorf("%s does not say what it left out", tc.name)
		}
	}
	if !strings.Contains(msg.Full(answer.MarkdownGFM), "<details><summary>All 10000 rows</summary>") {
		t.Errorf("full Markdown does not fold its tables")
	}
	if utf8.RuneCountInString(msg.Short(answer.MarkdownGFM)) < gitHubCommentLimit/2 {
		t.Errorf("ShortMarkdown uses only %d characters: the fit is too loose", utf8.RuneCountInString(msg.Short(answer.MarkdownGFM)))
	}
}

func TestCharts(t *testing.T) {
	for _, seed := range []string{"hbase-wal", "aurora-offheap"} {
		cmp, _ := loadSeed(t, seed)
		atts, err := Charts(cmp)
		if err != nil {
			t.Fatal(err)
		}
		var pngs, svgs int
		for _, a := range atts {
			switch a.ContentType {
			case "image/png":
				pngs++
				img, err := png.Decode(bytes.NewReader(a.Data))
				if err != nil {
					t.Fatalf("%s: %v", a.Name, err)
				}
				if b := img.Bounds(); b.Dx() > 1000 || b.Dy() > 800 || len(a.Data) > 200_000 {
					t.Errorf("%s is %dx%d, %d bytes: too big for a mail", a.Name, b.Dx(), b.Dy(), len(a.Data))
				}
			case "image/svg+xml":
				svgs++
				if !bytes.Contains(a.Data, []byte("<svg")) {
					t.Errorf("%s is not SVG", a.Name)
				}
			}
		}
		if pngs == 0 || pngs != svgs {
			t.Errorf("%s: %d PNG and %d SVG charts", seed, pngs, svgs)
		}
	}
}

// TestTwoCandidates renders a comparison with two candidates: each gets
// its columns, and every table line has its header's cells.
func TestTwoCandidates(t *testing.T) {
	out := renderAll(t, bigComparison(50, "p1", "p2"))
	checkTables(t, "markdown", out["markdown"], func(l string) int { return cellCount(stripCode(l)) },
		func(l string) bool { return strings.HasPrefix(l, "|") })
	jiraCells := func(l string) int {
		if strings.HasPrefix(l, "||") {
			return strings.Count(l, "||") - 1
		}
		return strings.Count(l, "|") - 1
	}
	checkTables(t, "jira", out["jira"], jiraCells, func(l string) bool { return strings.HasPrefix(l, "|") })
	for _, f := range []string{"markdown", "reviewboard", "jira", "text", "html"} {
		if !strings.Contains(out[f], "p1") || !strings.Contains(out[f], "p2 vs base") {
			t.Errorf("%s lacks a candidate or its summary", f)
		}
	}
}
