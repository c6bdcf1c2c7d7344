package digest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/store"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func row(name string, params bench.Params, unit string, base, delta float64, v compare.Verdict) compare.Row {
	return compare.Row{Benchmark: name, Params: params, Unit: unit,
		Base: &compare.Cell{Center: base, N: 5},
		Candidates: []compare.Candidate{{Variant: "cand", Cell: compare.Cell{Center: base * (1 + delta/100), N: 5},
			DeltaPct: delta, Verdict: v, P: 0.01, Alpha: 0.05, Presence: compare.Both}}}
}

// rowTo is a row whose candidate measured cand.
func rowTo(name, unit string, base, cand float64, v compare.Verdict) compare.Row {
	r := row(name, nil, unit, base, 0, v)
	r.Candidates[0].Center = cand
	return r
}

// saveRun stores one finished run with its comparison and, when link is
// set, its posted answer; it returns the run's id.
func saveRun(t testing.TB, st *store.Store, run store.Run, rows []compare.Row, prov provenance.Record, link string) int64 {
	t.Helper()
	ctx := context.Background()
	if run.JobID != 0 {
		if _, err := st.StartRun(ctx, &run); err != nil {
			t.Fatal(err)
		}
	} else if _, err := st.CreateRun(ctx, &run); err != nil {
		t.Fatal(err)
	}
	tally := compare.Tally{Variant: "cand"}
	for _, row := range rows {
		switch row.Candidates[0].Verdict {
		case compare.Better:
			tally.Better++
		case compare.Worse:
			tally.Worse++
		default:
			tally.Same++
		}
	}
	if err := st.SaveComparison(ctx, run.ID, &compare.Comparison{Base: "base", Candidates: []string{"cand"}, Rows: rows,
		Summary: []compare.Tally{tally}, Provenance: prov}); err != nil {
		t.Fatal(err)
	}
	run.Status = store.StatusDone
	if err := st.FinishRun(ctx, &run); err != nil {
		t.Fatal(err)
	}
	if link != "" {
		if err := st.RecordPost(ctx, store.Post{Venue: run.Venue, Target: run.Target, JobKey: run.JobKey, Link: link}); err != nil {
			t.Fatal(err)
		}
	}
	return run.ID
}

// backdate moves a run's finish time.
func backdate(t testing.TB, st *store.Store, id int64, at time.Time) {
	t.Helper()
	if _, err := st.DB().Exec(`UPDATE runs SET finished_at = ? WHERE id = ?`, at.UTC().Format("2006-01-02T15:04:05.000000Z"), id); err != nil {
		t.Fatal(err)
	}
}

const track = "git@example.org:acme/store@main"

// seed stores a week: a mailed patch that regressed and was confirmed
// after merge, a pull request that improved, a command-line patch with a
// mixed result (the quickstart's), a pull request that moved nothing, a
// tracked branch with a step in BenchmarkScan (a change point, still open
// eight runs later) whose BenchmarkOld stopped this week, and a release
// candidate.
func seed(t testing.TB, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	// The tracked branch: BenchmarkOld last measured the week before.
	old := saveRun(t, st, store.Run{JobKey: "track:main@0000", Venue: store.VenueTrack, Target: track, CandidateRef: "main",
		BaseCommit: "0000000000", CandidateCommit: "00000000001111"},
		[]compare.Row{row("BenchmarkOld", nil, "ns/op", 50, 0.1, compare.Same), row("BenchmarkScan", nil, "ns/op", 100, 0.2, compare.Same)},
		provenance.Record{}, "")
	backdate(t, st, old, now.Add(-9*24*time.Hour))
	var step int64
	prev := "00000000001111"
	for i := range 12 {
		commit := fmt.Sprintf("c%09d%04d", i, i)
		centre, delta, v := 100.0+float64(i%3)*0.3, 0.3, compare.Same
		if i >= 4 {
			centre = 125 + float64(i%3)*0.3
		}
		if i == 4 {
			delta, v = 25, compare.Worse
		}
		id := saveRun(t, st, store.Run{JobKey: "track:main@" + commit, Venue: store.VenueTrack, Target: track, CandidateRef: "main",
			BaseCommit: prev, CandidateCommit: commit},
			[]compare.Row{row("BenchmarkScan", nil, "ns/op", centre/(1+delta/100), delta, v)}, provenance.Record{}, "")
		if i == 4 {
			step = id
		}
		prev = commit
	}
	cp := store.ChangePoint{Benchmark: "BenchmarkScan", Unit: "ns/op", Commit: "c0000000040004", CommitBefore: "c0000000030003",
		RunID: step, NBefore: 4, NAfter: 8, Before: 100.3, BeforeLo: 100, BeforeHi: 100.6, After: 125.3, AfterLo: 125, AfterHi: 125.6,
		DeltaPct: 24.9, P: 0.001, MinChangePct: 2}
	key, err := cp.Key()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveChangePoints(ctx, track, key, []store.ChangePoint{cp}); err != nil {
		t.Fatal(err)
	}

	// A mailed patch: worse, landed and confirmed.
	mailKey := "mail:<20261125.wal@example.org>"
	mailRun := saveRun(t, st, store.Run{JobKey: mailKey, JobID: 1, CandidateRef: "main", Patch: "inline: scan: check every key twice", Venue: "mail", Target: "dev@lists.example.org"},
		[]compare.Row{row("BenchmarkScan", nil, "ns/op", 100, 24.9, compare.Worse), row("BenchmarkScan", nil, "B/op", 64, 50, compare.Worse)},
		provenance.Record{Sides: []provenance.Side{{Variant: "base", Ref: "main"}, {Variant: "cand", Ref: "main", Patch: "mail",
			PatchSubject: "scan: <b>check</b> every key twice"}}},
		"<20261125.answer@perfbot>")
	if err := st.OpenFollowUp(ctx, store.FollowUp{Key: mailKey, RunID: mailRun, Venue: "mail", Target: "dev@lists.example.org"}); err != nil {
		t.Fatal(err)
	}
	if err := st.LandFollowUp(ctx, mailKey, "c0000000040004", store.LandedPatchID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DecideFollowUp(ctx, mailKey, track, []string{"BenchmarkScan (ns/op)\tconfirmed on main at c000000: +24.9%"}); err != nil {
		t.Fatal(err)
	}
	// A pull request: better, not landed.
	prKey := "github:acme/store#12/comment/1"
	prRun := saveRun(t, st, store.Run{JobKey: prKey, JobID: 2, CandidateRef: "refs/pull/12/head", Venue: "github", Target: "acme/store#12",
		Title: "acme/store#12: get: cache decoded blocks <fast & small>"},
		[]compare.Row{row("BenchmarkGet", bench.Params{{Name: "size", Value: "4k"}}, "ns/op", 200, -30, compare.Better),
			row("BenchmarkGet", bench.Params{{Name: "size", Value: "64k"}}, "ns/op", 900, -10, compare.Better),
			row("BenchmarkPut", nil, "ns/op", 300, 0.5, compare.Same)},
		provenance.Record{}, "https://github.com/acme/store/pull/12#issuecomment-5")
	if err := st.OpenFollowUp(ctx, store.FollowUp{Key: prKey, RunID: prRun, Venue: "github", Target: "acme/store#12"}); err != nil {
		t.Fatal(err)
	}
	// The quickstart's patch from the command line: one benchmark, time
	// better and memory worse.
	walRun := saveRun(t, st, store.Run{JobKey: "compare:wal", CandidateRef: "HEAD", BaseRef: "HEAD", Patch: "examples/wal/buffered-append.patch"},
		[]compare.Row{row("BenchmarkAppend-2", nil, "sec/op", 7.1e-6, -98.1, compare.Better),
			rowTo("BenchmarkAppend-2", "B/op", 0, 8, compare.Worse), rowTo("BenchmarkAppend-2", "allocs/op", 0, 1, compare.Worse),
			row("BenchmarkChecksum-2", nil, "sec/op", 2e-6, 0.4, compare.Same)},
		provenance.Record{Sides: []provenance.Side{{Variant: "base", Ref: "HEAD"}, {Variant: "cand", Ref: "HEAD",
			Patch: "examples/wal/buffered-append.patch", PatchSubject: "wal: buffer appends in a 64 KiB writer"}}}, "")
	// A reviewer marked its B/op a false alarm.
	if err := st.AddFalseAlarms(ctx, []store.FalseAlarm{{RunID: walRun, Host: "bench-1", Key: store.NoiseKey{Benchmark: "BenchmarkAppend-2",
		Params: "null", Unit: "B/op"}, Variant: "cand", Verdict: "worse", DeltaPct: 100, By: "alice", Venue: "cli"}}); err != nil {
		t.Fatal(err)
	}
	// A pull request that moved nothing.
	saveRun(t, st, store.Run{JobKey: "github:acme/store#14/comment/3", JobID: 3, CandidateRef: "refs/pull/14/head", Venue: "github", Target: "acme/store#14"},
		[]compare.Row{row("BenchmarkPut", nil, "ns/op", 300, 0.5, compare.Same)}, provenance.Record{},
		"https://github.com/acme/store/pull/14#issuecomment-9")
	// The release candidate.
	saveRun(t, st, store.Run{JobKey: ReleaseKey("v2.6.0-rc1", "v2.5.0"), JobID: 4, BaseRef: "v2.5.0", CandidateRef: "v2.6.0-rc1",
		Venue: "mail", Target: "dev@lists.example.org"},
		[]compare.Row{row("BenchmarkGet", bench.Params{{Name: "size", Value: "4k"}}, "ns/op", 200, 4, compare.Worse)},
		provenance.Record{}, "<release.v2.6.0-rc1@perfbot>")
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

// weekly builds the seeded store's weekly digest with a fixed period for
// the golden files.
func weekly(t *testing.T, st *store.Store) *Digest {
	t.Helper()
	to := time.Now().Add(time.Hour)
	d, err := Build(context.Background(), st, to.Add(-7*24*time.Hour), to, Options{Branches: []string{"main"}, RC: "v2.6.0-rc1",
		Release: "v2.5.0", Title: "weekly", URL: "https://perf.example.org/", MailArchive: "https://lists.example.org/r/%s"})
	if err != nil {
		t.Fatal(err)
	}
	d.From = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	d.To = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	d.Link = "https://perf.example.org" + PagePath(d.Title, d.To)
	return d
}

func TestBuildAndRender(t *testing.T) {
	st := storetest.SQLite(t)
	seed(t, st)
	d := weekly(t, st)
	c := d.Counts
	if c.Regressions != 1 || c.Improvements != 1 || c.Mixed != 1 || c.Patches != 4 || c.BenchmarkChanges != 4 ||
		c.ChangePoints != 1 || c.Stopped != 1 || c.Open != 1 {
		t.Errorf("counts = %+v", c)
	}
	if len(d.Requests) != 3 || d.Requests[0].Kind != KindRegression || d.Requests[1].Kind != KindMixed || d.Requests[2].Kind != KindImprovement {
		t.Fatalf("requests = %+v", d.Requests)
	}
	if r := d.Requests[1]; r.Title != "wal: buffer appends in a 64 KiB writer" || r.Moved() != 1 || r.Mixed != 1 ||
		r.State != "marked a false alarm by alice" {
		t.Errorf("the command-line patch: %+v", r)
	}
	if r := d.Requests[0]; r.State != "confirmed on main after merge" || r.Moved() != 1 || r.MaxPct != 24.9 {
		t.Errorf("the mailed patch: %+v", r)
	}
	if r := d.Requests[2]; r.Title != "acme/store#12: get: cache decoded blocks <fast & small>" {
		t.Errorf("the pull request's title: %q", r.Title)
	}
	if r := d.Requests[2]; r.State != "not landed yet" || r.Better != 2 || r.MeanPct != -20 || r.MaxPct != -30 {
		t.Errorf("the pull request: %+v", r)
	}
	if len(d.Shifts) != 1 || d.Shifts[0].Spark == "" || len(d.Open) != 1 || d.Open[0].RunsSince != 7 {
		t.Errorf("shifts %+v, open %+v", d.Shifts, d.Open)
	}
	msg := d.Message()
	txt, htm := msg.Full(answer.Text), msg.Full(answer.HTML)
	golden(t, "weekly.txt", txt)
	golden(t, "weekly.html", htm)
	if !strings.Contains(htm, "get: cache decoded blocks &lt;fast &amp; small&gt;") || !strings.Contains(oneLine(txt), "blocks <fast & small>") {
		t.Error("the pull request's title is not escaped for HTML, or is in the text part")
	}
	for i, line := range strings.Split(txt, "\n") {
		if utf8.RuneCountInString(line) > textWidth && !strings.Contains(line, "https://") {
			t.Errorf("text line %d is %d columns: %q", i+1, utf8.RuneCountInString(line), line)
		}
	}
	if strings.Contains(htm, "<b>check</b>") || !strings.Contains(htm, "scan: &lt;b&gt;check&lt;/b&gt; every key twice") {
		t.Error("a patch subject became markup in HTML")
	}
	if !strings.Contains(txt, "scan: <b>check</b> every key twice") {
		t.Error("the text part escaped a subject it should show as is")
	}
	if strings.Contains(htm, "<link") || strings.Contains(htm, "<script") || !strings.Contains(htm, "<svg") {
		t.Error("the HTML part is not self-contained with an inline chart")
	}
	if msg.Subject != "perfbot weekly: 2026-11-23 to 2026-11-30" ||
		msg.Summary != "1 regression, 1 improvement, 1 mixed in 4 patches measured; 1 change point on tracked branches" {
		t.Errorf("subject %q, summary %q", msg.Subject, msg.Summary)
	}
}

// TestTop shows the first items in full and counts the rest with a link.
func TestTop(t *testing.T) {
	st := storetest.SQLite(t)
	seed(t, st)
	to := time.Now().Add(time.Hour)
	d, err := Build(context.Background(), st, to.Add(-7*24*time.Hour), to, Options{Branches: []string{"main"}, Top: 1, URL: "https://perf.example.org"})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Requests) != 1 || d.MoreRequests != 3 { // the release candidate's run is a request here
		t.Fatalf("requests %d, more %d", len(d.Requests), d.MoreRequests)
	}
	if txt := d.Text(); !strings.Contains(txt, "... and 3 more that moved benchmarks:\n  https://perf.example.org/digests/") {
		t.Errorf("the rest is not counted with a link:\n%s", txt)
	}
}

func TestEmptyPeriod(t *testing.T) {
	st := storetest.SQLite(t)
	d, err := Build(context.Background(), st, time.Now().Add(-time.Hour), time.Now(), Options{Branches: []string{"main"}})
	if err != nil {
		t.Fatal(err)
	}
	d.ReleaseNote = "v2 has not been measured against v1 yet"
	if txt := d.Text(); !strings.Contains(txt, "None moved a benchmark") || !strings.Contains(txt, "none") || !strings.Contains(txt, "not been measured") {
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
	if len(d.Trends) != 1 || len(d.Trends[0].Values) != 13 { // the track's runs, not the patch on main
		t.Fatalf("trends = %+v", d.Trends)
	}
	msg := d.Message()
	if len(msg.Attachments) != 1 || msg.Attachments[0].ContentType != "image/png" ||
		!strings.HasPrefix(string(msg.Attachments[0].Data), "\x89PNG") {
		t.Errorf("attachments = %d", len(msg.Attachments))
	}
}

func TestSparkline(t *testing.T) {
	if got := sparkline([]float64{1, 1, 1, 5, 5}); got != "▁▁▁██" {
		t.Errorf("sparkline = %q", got)
	}
	if got := sparkline([]float64{3}); got != "" {
		t.Errorf("one point: %q", got)
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

// TestChangePointFoundByRun shows a change point that a commit's own run
// found as found by the run, in the text and the HTML part.
func TestChangePointFoundByRun(t *testing.T) {
	st := storetest.SQLite(t)
	ctx := context.Background()
	id := saveRun(t, st, store.Run{JobKey: "track:main@c1", Venue: store.VenueTrack, Target: track, CandidateRef: "main",
		BaseCommit: "c0", CandidateCommit: "c1"},
		[]compare.Row{row("BenchmarkScan", nil, "ns/op", 100, 25, compare.Worse)}, provenance.Record{}, "")
	cp := store.ChangePoint{Benchmark: "BenchmarkScan", Unit: "ns/op", Commit: "c1", CommitBefore: "c0", RunID: id,
		NBefore: 1, NAfter: 1, Before: 100, After: 125, DeltaPct: 25, P: 0.001, FoundBy: store.FoundByRun}
	key, err := cp.Key()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveChangePoints(ctx, track, key, []store.ChangePoint{cp}); err != nil {
		t.Fatal(err)
	}
	to := time.Now().Add(time.Hour)
	d, err := Build(ctx, st, to.Add(-24*time.Hour), to, Options{Branches: []string{"main"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Shifts) != 1 || d.Shifts[0].FoundBy != store.FoundByRun {
		t.Fatalf("shifts = %+v", d.Shifts)
	}
	if txt := oneLine(d.Text()); !strings.Contains(txt, "found by the commit's run") || strings.Contains(txt, "found in the history") {
		t.Errorf("the text part does not say the run found it:\n%s", txt)
	}
	if htm := d.HTML(); !strings.Contains(htm, "found by the commit&#39;s run") {
		t.Errorf("the HTML part does not say the run found it:\n%s", htm)
	}
}

// TestStates says what became of each request: confirmed, partly
// confirmed, retracted, not measured after merge, landed and waiting, not
// landed, and marked a false alarm in part.
func TestStates(t *testing.T) {
	st := storetest.SQLite(t)
	ctx := context.Background()
	rows := []compare.Row{row("BenchmarkA", nil, "ns/op", 100, 20, compare.Worse), row("BenchmarkB", nil, "ns/op", 100, 20, compare.Worse)}
	for i, c := range []struct {
		lines  []string
		landed bool
		marks  int
		want   string
	}{
		{lines: []string{"BenchmarkA (ns/op)\tconfirmed on main at c1: +20%", "BenchmarkB (ns/op)\tconfirmed on main at c1: +20%"},
			want: "confirmed on main after merge"},
		{lines: []string{"BenchmarkA (ns/op)\tconfirmed on main at c1: +20%", "BenchmarkB (ns/op)\tnot seen on main after 5 commits"},
			want: "partly confirmed on main after merge (1 of 2)"},
		{lines: []string{"BenchmarkA (ns/op)\tnot seen on main after 5 commits", "BenchmarkB (ns/op)\tnot measured on main in 5 commits"},
			want: "retracted: not seen on main after merge"},
		{lines: []string{"BenchmarkA (ns/op)\tnot measured on main in 5 commits"}, want: "landed; not measured on main after merge"},
		{landed: true, want: "landed as c000000001, waiting for tracked runs"},
		{want: "not landed yet"},
		{marks: 1, want: "not landed yet; 1 of 2 benchmarks marked false alarms by bob"},
		{marks: 2, lines: []string{"BenchmarkA (ns/op)\tnot seen on main after 5 commits"},
			want: "marked a false alarm by bob; retracted: not seen on main after merge"},
	} {
		key := fmt.Sprintf("mail:<%d@example.org>", i)
		id := saveRun(t, st, store.Run{JobKey: key, JobID: int64(i + 1), Venue: "mail", Target: "dev@example.org", Title: key}, rows,
			provenance.Record{}, "")
		if err := st.OpenFollowUp(ctx, store.FollowUp{Key: key, RunID: id, Venue: "mail", Target: "dev@example.org"}); err != nil {
			t.Fatal(err)
		}
		if c.landed || c.lines != nil {
			if err := st.LandFollowUp(ctx, key, "c0000000011111", store.LandedPatchID); err != nil {
				t.Fatal(err)
			}
		}
		if c.lines != nil {
			if _, err := st.DecideFollowUp(ctx, key, track, c.lines); err != nil {
				t.Fatal(err)
			}
		}
		for _, b := range []string{"BenchmarkA", "BenchmarkB"}[:c.marks] {
			if err := st.AddFalseAlarms(ctx, []store.FalseAlarm{{RunID: id, Host: "h", Key: store.NoiseKey{Benchmark: b, Params: "null",
				Unit: "ns/op"}, Verdict: "worse", DeltaPct: 20, By: "bob", Venue: "mail"}}); err != nil {
				t.Fatal(err)
			}
		}
		to := time.Now().Add(time.Hour)
		d, err := Build(ctx, st, to.Add(-24*time.Hour), to, Options{Top: 100})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, r := range d.Requests {
			if r.RunID == id {
				got = r.State
			}
		}
		if got != c.want {
			t.Errorf("case %d: state %q, want %q", i, got, c.want)
		}
	}
}

// TestOpenAfter lists a regression as still open only after
// Options.OpenAfter runs of its branch.
func TestOpenAfter(t *testing.T) {
	st := storetest.SQLite(t)
	seed(t, st)
	to := time.Now().Add(time.Hour)
	for _, c := range []struct{ after, open int }{{7, 1}, {8, 0}, {0, 1}} { // 7 runs since; 0: the default, 5
		d, err := Build(context.Background(), st, to.Add(-7*24*time.Hour), to, Options{Branches: []string{"main"}, OpenAfter: c.after})
		if err != nil {
			t.Fatal(err)
		}
		if d.Counts.Open != c.open {
			t.Errorf("open_after %d: %d open, want %d", c.after, d.Counts.Open, c.open)
		}
	}
}
