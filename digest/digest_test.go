package digest

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/store"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func row(name string, params bench.Params, unit string, delta float64, v compare.Verdict) compare.Row {
	base := 100.0
	return compare.Row{Benchmark: name, Params: params, Unit: unit,
		Base: &compare.Cell{Center: base, N: 5},
		Candidates: []compare.Candidate{{Variant: "cand", Cell: compare.Cell{Center: base * (1 + delta/100), N: 5},
			DeltaPct: delta, Verdict: v, P: 0.01, Alpha: 0.05}}}
}

// seed stores a nightly run on main and a pull request's run.
func seed(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	runs := []struct {
		run  store.Run
		rows []compare.Row
		link string
	}{
		{store.Run{JobKey: "schedule:nightly@2026-11-29T03:00Z", JobID: 1, CandidateRef: "main",
			BaseCommit: "1111111111aaaa", CandidateCommit: "2222222222bbbb", Venue: "mail", Target: "dev@lists.example.org"},
			[]compare.Row{
				row("BenchmarkWALAppend", bench.Params{{Name: "threads", Value: "10"}}, "ns/op", -12.5, compare.Better),
				row("BenchmarkScan<script>", nil, "ns/op", 8.25, compare.Worse),
				row("BenchmarkGet", nil, "ns/op", 0.4, compare.Same),
			}, "<20261129030000.nightly@perfbot>"},
		{store.Run{JobKey: "github:acme/store#12/comment/1", JobID: 2, CandidateRef: "refs/pull/12/head",
			Venue: "github", Target: "acme/store#12"},
			[]compare.Row{row("BenchmarkScan", nil, "ns/op", -30, compare.Better)},
			"https://github.com/acme/store/pull/12#issuecomment-5"},
		{store.Run{JobKey: ReleaseKey("v2.6.0-rc1", "v2.5.0"), JobID: 3, BaseRef: "v2.5.0", CandidateRef: "v2.6.0-rc1",
			Venue: "mail", Target: "dev@lists.example.org"},
			[]compare.Row{row("BenchmarkGet", nil, "ns/op", 4, compare.Worse)},
			"<release.v2.6.0-rc1@perfbot>"},
	}
	for _, r := range runs {
		run := r.run
		if _, err := st.StartRun(ctx, &run); err != nil {
			t.Fatal(err)
		}
		tally := compare.Tally{Variant: "cand"}
		for _, row := range r.rows {
			switch row.Candidates[0].Verdict {
			case compare.Better:
				tally.Better++
			case compare.Worse:
				tally.Worse++
			}
		}
		if err := st.SaveComparison(ctx, run.ID, &compare.Comparison{Base: "base", Candidates: []string{"cand"}, Rows: r.rows,
			Summary: []compare.Tally{tally}}); err != nil {
			t.Fatal(err)
		}
		run.Status = store.StatusDone
		if err := st.FinishRun(ctx, &run); err != nil {
			t.Fatal(err)
		}
		if err := st.RecordPost(ctx, store.Post{Venue: run.Venue, Target: run.Target, JobKey: run.JobKey, Link: r.link}); err != nil {
			t.Fatal(err)
		}
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestBuildAndRender(t *testing.T) {
	st := storetest.SQLite(t)
	seed(t, st)
	to := time.Now().Add(time.Hour)
	d, err := Build(context.Background(), st, to.Add(-7*24*time.Hour), to, Options{Branches: []string{"main"}, RC: "v2.6.0-rc1", Release: "v2.5.0", Title: "weekly"})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Branch) != 2 || len(d.Patches) != 1 || d.Patches[0].Better != 1 || d.Release == nil || d.Release.Worse != 1 {
		t.Fatalf("digest = %+v", d)
	}
	// Fix the period for the golden files.
	d.From = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	d.To = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	msg := d.Message()
	golden(t, "weekly.txt", msg.Full(answer.Text))
	golden(t, "weekly.html", msg.Full(answer.HTML))
	if strings.Contains(msg.Full(answer.HTML), "<script>") || !strings.Contains(msg.Full(answer.HTML), "BenchmarkScan&lt;script&gt;") {
		t.Error("benchmark name not escaped in HTML")
	}
	if msg.Subject != "perfbot weekly: 2026-11-23 to 2026-11-30" || msg.Summary != "1 better, 1 worse on tracked branches; 1 patches measured" {
		t.Errorf("subject %q, summary %q", msg.Subject, msg.Summary)
	}
}

func TestEmptyPeriod(t *testing.T) {
	st := storetest.SQLite(t)
	d, err := Build(context.Background(), st, time.Now().Add(-time.Hour), time.Now(), Options{Branches: []string{"main"}})
	if err != nil {
		t.Fatal(err)
	}
	d.ReleaseNote = "v2 has not been measured against v1 yet"
	if txt := d.Text(); !strings.Contains(txt, "no significant change") || !strings.Contains(txt, "none") || !strings.Contains(txt, "not been measured") {
		t.Errorf("empty digest:\n%s", txt)
	}
}

func TestCharts(t *testing.T) {
	st := storetest.SQLite(t)
	seed(t, st)
	to := time.Now().Add(time.Hour)
	d, err := Build(context.Background(), st, to.Add(-24*time.Hour), to, Options{Branches: []string{"main"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Trends) != 2 || len(d.Trends[0].Values) != 1 {
		t.Fatalf("trends = %+v", d.Trends)
	}
	msg := d.Message()
	if len(msg.Attachments) != 2 || msg.Attachments[0].ContentType != "image/png" ||
		!strings.HasPrefix(string(msg.Attachments[0].Data), "\x89PNG") {
		t.Errorf("attachments = %d", len(msg.Attachments))
	}
}

// TestHTMLTemplateOverride renders the digest with a user's digest.tmpl
// in place of the default, and reports a broken one.
func TestHTMLTemplateOverride(t *testing.T) {
	d := &Digest{Title: "weekly <b>"}
	def, err := d.HTMLWith("")
	if err != nil || !strings.Contains(def, "weekly &lt;b&gt;") {
		t.Fatalf("default: %v\n%s", err, def)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "digest.tmpl"), []byte(`{{define "digest"}}<p>custom {{.Title}}</p>{{end}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := d.HTMLWith(dir)
	if err != nil || out != "<p>custom weekly &lt;b&gt;</p>" {
		t.Errorf("override: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "digest.tmpl"), []byte(`{{define "digest"}}{{.Nope}}{{end}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.HTMLWith(dir); err == nil {
		t.Error("a template naming a missing field rendered without error")
	}
}
