package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perfbot/perfbot/flame"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/store"
)

func TestHome(t *testing.T) {
	st, ids := filled(t)
	srv := server(t, st)
	resp, body := get(t, srv, "/", 200)
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
		t.Errorf("Content-Security-Policy = %q, want default-src 'none' and no script source", csp)
	}
	for _, want := range []string{
		`<td class="mono">https://go.googlesource.com/go</td><td class="mono">master</td><td class="num">3</td>`,
		fmt.Sprintf(`<a href="/runs/%d">#%d</a>`, ids[2], ids[2]),
		"github:acme/store#12",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("home page lacks %s", want)
		}
	}
	var h Home
	_, js := get(t, srv, "/api/home", 200)
	if err := json.Unmarshal([]byte(js), &h); err != nil {
		t.Fatal(err)
	}
	// The 64-bit index is slower (sec/op, MB/s) and takes twice the
	// memory (B/op): regressions, newest run first, none better.
	if len(h.Regressions) == 0 || len(h.Improvements) != 0 {
		t.Fatalf("%d regressions and %d improvements, want some and none:\n%s", len(h.Regressions), len(h.Improvements), js)
	}
	if r := h.Regressions[0]; r.Run != ids[2] || r.Benchmark != "New-8" || r.Verdict != "worse" || r.RunURL != fmt.Sprintf("/runs/%d", ids[2]) {
		t.Errorf("first regression = %+v, want benchmark New-8 of run %d", r, ids[2])
	}
	for _, r := range h.Regressions {
		if r.Unit == "B/op" && !(r.DeltaPct > 99 && r.DeltaPct < 101) {
			t.Errorf("%s %s B/op changed %+.1f%%, want about +100%% (twice the memory)", r.Benchmark, r.Params, r.DeltaPct)
		}
	}
	if len(h.Runs) != 3 || len(h.Branches) != 1 || h.Branches[0].Runs != 3 {
		t.Errorf("%d runs and branches %+v, want 3 runs on one branch", len(h.Runs), h.Branches)
	}
}

func TestRunPage(t *testing.T) {
	st, ids := filled(t)
	srv := server(t, st)
	id := ids[2]
	_, body := get(t, srv, fmt.Sprintf("/runs/%d", id), 200)
	for _, want := range []string{
		"Run #" + fmt.Sprint(id) + ": index/suffixarray: use 64-bit indexes",
		`id="table-0"`,
		`<th>text</th><th>size</th>`,
		`<td class="mono">opticks</td><td class="mono">500K</td>`,
		`<td class="worse">worse</td>`,
		"± ", // intervals
		"p=",
		"Intel(R) Core(TM) i7-8665U CPU @ 1.90GHz",
		"7f87d66fe45f1d209b404f397b2258d313cae093",
		`href="https://github.com/acme/store/pull/12#issuecomment-cccccccccccc"`,
		fmt.Sprintf(`href="/runs/%d/results/base"`, id),
		fmt.Sprintf(`href="/runs/%d/comparison.json"`, id),
		fmt.Sprintf(`<img src="/runs/%d/charts/perfbot-chart-1.png"`, id),
	} {
		if !strings.Contains(body, want) {
			t.Errorf("run page lacks %s", want)
		}
	}

	resp, png := get(t, srv, fmt.Sprintf("/runs/%d/charts/perfbot-chart-1.png", id), 200)
	if ct := resp.Header.Get("Content-Type"); ct != "image/png" || !strings.HasPrefix(png, "\x89PNG\r\n") {
		t.Errorf("chart: %s, %d bytes starting %q, want a PNG", ct, len(png), png[:min(8, len(png))])
	}

	_, js := get(t, srv, fmt.Sprintf("/runs/%d/comparison.json", id), 200)
	var contract struct {
		Base  string `json:"base_variant"`
		Rows  []any  `json:"comparisons"`
		Prov  any    `json:"provenance"`
		Tally []any  `json:"summary"`
	}
	if err := json.Unmarshal([]byte(js), &contract); err != nil || contract.Base != "base" || len(contract.Rows) != 8 {
		t.Errorf("comparison.json: %v, base %q, %d rows; want base and 8 rows (2 sizes × 4 units)", err, contract.Base, len(contract.Rows))
	}

	var detail RunDetail
	_, js = get(t, srv, fmt.Sprintf("/api/runs/%d", id), 200)
	if err := json.Unmarshal([]byte(js), &detail); err != nil {
		t.Fatal(err)
	}
	if detail.Run.ID != id || len(detail.Results) != 2 || len(detail.Charts) == 0 || len(detail.Posts) != 1 || len(detail.Comparison) == 0 {
		t.Errorf("/api/runs/%d = run %d, %d result files, %d charts, %d posts, %d bytes of comparison",
			id, detail.Run.ID, len(detail.Results), len(detail.Charts), len(detail.Posts), len(detail.Comparison))
	}
}

// TestRawResultsReadByBenchfmt checks that the download is Go benchmark
// format that benchstat's reader takes, holding every sample stored.
func TestRawResultsReadByBenchfmt(t *testing.T) {
	st, ids := filled(t)
	srv := server(t, st)
	for _, variant := range []string{"base", "bits64"} {
		resp, text := get(t, srv, fmt.Sprintf("/runs/%d/results/%s", ids[0], variant), 200)
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
			t.Errorf("%s: Content-Type %s", variant, ct)
		}
		r := benchfmt.NewReader(strings.NewReader(text), "results-"+variant+".txt")
		names := map[string]int{}
		units := map[string]bool{}
		for r.Scan() {
			switch rec := r.Result().(type) {
			case *benchfmt.Result:
				names[string(rec.Name)]++
				for _, v := range rec.Values {
					units[v.Unit] = true
				}
			case *benchfmt.SyntaxError:
				t.Errorf("%s: %v", variant, rec)
			}
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		// The trimmed file holds size=100K at both bits (ten samples
		// each) and six samples of size=500K at bits=32: one line per
		// sample and unit.
		want := map[string]int{"New-8/text=opticks/size=100K": 40}
		if variant == "base" {
			want["New-8/text=opticks/size=500K"] = 24
		}
		if fmt.Sprint(names) != fmt.Sprint(want) {
			t.Errorf("%s: lines per benchmark %v, want %v", variant, names, want)
		}
		for _, u := range []string{"sec/op", "B/op", "allocs/op"} {
			if !units[u] {
				t.Errorf("%s: no %s values; units %v", variant, u, units)
			}
		}
	}
	get(t, srv, fmt.Sprintf("/runs/%d/results/nosuch", ids[0]), 404)
}

func TestSearchBySubstring(t *testing.T) {
	st, _ := filled(t)
	srv := server(t, st)
	var list []Series
	_, js := get(t, srv, "/api/benchmarks?q="+url.QueryEscape("NEW size=500"), 200)
	if err := json.Unmarshal([]byte(js), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 4 {
		t.Fatalf("%d series for \"NEW size=500\", want 4 (one per unit):\n%s", len(list), js)
	}
	for _, s := range list {
		if v, _ := s.Params.Get("size"); s.Benchmark != "New-8" || v != "500K" {
			t.Errorf("series %s %s matched \"NEW size=500\"", s.Benchmark, s.Params)
		}
	}
	_, js = get(t, srv, "/api/benchmarks?q=opticks", 200)
	if err := json.Unmarshal([]byte(js), &list); err != nil || len(list) != 8 {
		t.Errorf("%d series for opticks, want 8: %v", len(list), err)
	}
	_, js = get(t, srv, "/api/benchmarks?q=nosuchthing", 200)
	if strings.TrimSpace(js) != "[]" {
		t.Errorf("no match answered %s, want []", js)
	}
	_, page := get(t, srv, "/benchmarks?q=size%3D100K", 200)
	if n := strings.Count(page, `<tr><td><a href="/benchmarks/New-8?`); n != 4 {
		t.Errorf("search page lists %d series for size=100K, want 4", n)
	}
	// Wildcards of LIKE are literal.
	_, js = get(t, srv, "/api/benchmarks?q=%25", 200)
	if strings.TrimSpace(js) != "[]" {
		t.Errorf("%% matched %s", js)
	}
}

func TestHistory(t *testing.T) {
	st, ids := filled(t)
	srv := server(t, st)
	var list []Series
	_, js := get(t, srv, "/api/benchmarks?q=size=100K", 200)
	if err := json.Unmarshal([]byte(js), &list); err != nil {
		t.Fatal(err)
	}
	var secs Series
	for _, s := range list {
		if s.Unit == "ns/op" {
			secs = s
		}
	}
	if secs.URL == "" {
		t.Fatalf("no ns/op series in %s", js)
	}
	var h History
	_, js = get(t, srv, "/api"+secs.URL, 200)
	if err := json.Unmarshal([]byte(js), &h); err != nil {
		t.Fatal(err)
	}
	if h.Ref != "master" || len(h.Points) != 3 || len(h.Refs) != 2 {
		t.Fatalf("history on %q with %d points and refs %v, want 3 on master and the patch apart:\n%s", h.Ref, len(h.Points), h.Refs, js)
	}
	for i, p := range h.Points {
		if !p.Baseline || p.Run != ids[i] || p.N != 10 || p.Lo == nil || p.Hi == nil || !(*p.Lo <= p.Centre && p.Centre <= *p.Hi) ||
			!(p.Centre > 3e6 && p.Centre < 5e6) {
			t.Errorf("point %d = %+v, want run %d's baseline: 10 samples, about 4.05ms inside its interval", i, p, ids[i])
		}
	}
	if h.Points[2].Thread == "" || h.Points[0].Thread != "" {
		t.Errorf("threads %q, %q: want only the posted run's", h.Points[0].Thread, h.Points[2].Thread)
	}

	_, page := get(t, srv, secs.URL, 200)
	if n := strings.Count(page, "<circle "); n != 3 {
		t.Errorf("chart has %d points, want 3", n)
	}
	for _, id := range ids {
		if !strings.Contains(page, fmt.Sprintf(`<a href="/runs/%d" class="point">`, id)) {
			t.Errorf("chart does not link run %d", id)
		}
	}
	if !strings.Contains(page, `href="https://github.com/acme/store/pull/12#issuecomment-cccccccccccc"`) {
		t.Error("history does not link the review thread")
	}
	// The patched candidate is its own line.
	_, js = get(t, srv, "/api"+secs.URL+"&ref="+url.QueryEscape("master + suffixarray-64.patch"), 200)
	if err := json.Unmarshal([]byte(js), &h); err != nil || len(h.Points) != 3 || h.Points[0].Baseline || h.Points[0].Verdict != "worse" {
		t.Errorf("the patch's history: %v\n%s", err, js)
	}
	// A name alone lists its series when there are several.
	_, page = get(t, srv, "/benchmarks/New-8", 200)
	if n := strings.Count(page, `<tr><td><a href="/benchmarks/New-8?`); n != 8 {
		t.Errorf("/benchmarks/New-8 lists %d series, want 8", n)
	}
	get(t, srv, "/benchmarks/Nosuch", 404)
	get(t, srv, "/api/benchmarks/New-8?unit=ns/op&params=notjson", 400)
}

func TestNotFound(t *testing.T) {
	st, _ := filled(t)
	srv := server(t, st)
	get(t, srv, "/runs/999", 404)
	get(t, srv, "/runs/abc", 404)
	get(t, srv, "/runs/1/files/nosuch.svg", 404)
	_, js := get(t, srv, "/api/runs/999", 404)
	var e map[string]string
	if err := json.Unmarshal([]byte(js), &e); err != nil || e["error"] == "" {
		t.Errorf("/api/runs/999 answered %s, want a JSON error", js)
	}
	get(t, srv, "/nosuchpage", 404)
}

func TestStoredFiles(t *testing.T) {
	st, _ := filled(t)
	cmp := realComparison(t)
	base, err := flame.ReadFolded(strings.NewReader("main;index/suffixarray.New;index/suffixarray.sais_32 80\nmain;index/suffixarray.New;runtime.mallocgc 20\n"), "base")
	if err != nil {
		t.Fatal(err)
	}
	cand, err := flame.ReadFolded(strings.NewReader("main;index/suffixarray.New;index/suffixarray.sais_64 70\nmain;index/suffixarray.New;runtime.mallocgc 30\n"), "cand")
	if err != nil {
		t.Fatal(err)
	}
	var svg bytes.Buffer
	if err := flame.WriteSVG(&svg, flame.Tree(base, cand), flame.SVGOptions{Title: "bits64 against base", Diff: true}); err != nil {
		t.Fatal(err)
	}
	id := saveRun(t, st, cmp, "dddddddddddd", "", []store.Artifact{
		{Name: "flame-go-suffixarray-bits64-vs-base.svg", ContentType: "image/svg+xml", Data: svg.Bytes()},
		{Name: "profile-go-suffixarray-base.pprof", ContentType: "application/vnd.google.pprof", Data: []byte("\x1f\x8b\x08\x00pprof")},
	})
	srv := server(t, st)
	_, page := get(t, srv, fmt.Sprintf("/runs/%d", id), 200)
	if !strings.Contains(page, fmt.Sprintf(`<img src="/runs/%d/files/flame-go-suffixarray-bits64-vs-base.svg"`, id)) ||
		!strings.Contains(page, "profile-go-suffixarray-base.pprof") {
		t.Error("run page does not show the flame graph and offer the profile")
	}
	resp, body := get(t, srv, fmt.Sprintf("/runs/%d/files/flame-go-suffixarray-bits64-vs-base.svg", id), 200)
	if resp.Header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "sandbox") || body != svg.String() {
		t.Errorf("flame graph served as %s with CSP %q", resp.Header.Get("Content-Type"), resp.Header.Get("Content-Security-Policy"))
	}
	resp, _ = get(t, srv, fmt.Sprintf("/runs/%d/files/profile-go-suffixarray-base.pprof", id), 200)
	if resp.Header.Get("Content-Type") != "application/octet-stream" || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Errorf("profile served as %s, %s; want a download", resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"))
	}
}

// TestComparisonJSONIsTheContract checks that the comparison the run's
// JSON answers carry, sent as stored, reads the same as perfbot compare
// --format json writes the stored comparison (the service stores the
// contract read back: a NaN p-value is null there, then 0).
func TestComparisonJSONIsTheContract(t *testing.T) {
	st := storetest.SQLite(t)
	cmp := realComparison(t)
	cmp.Rows[0].Candidates[0].P = math.NaN()
	cmp.Rows[1].Candidates[0].Ratio = math.Inf(1)
	id := saveRun(t, st, cmp, "7f87d66fe45f1d209b404f397b2258d313cae093", "", nil)
	stored, err := st.Comparison(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := report.JSON(&want, stored); err != nil {
		t.Fatal(err)
	}
	var contract any
	if err := json.Unmarshal(want.Bytes(), &contract); err != nil {
		t.Fatal(err)
	}
	srv := server(t, st)
	_, file := get(t, srv, fmt.Sprintf("/runs/%d/comparison.json", id), 200)
	var detail struct {
		Comparison json.RawMessage `json:"comparison"`
	}
	_, api := get(t, srv, fmt.Sprintf("/api/runs/%d", id), 200)
	if err := json.Unmarshal([]byte(api), &detail); err != nil {
		t.Fatal(err)
	}
	for _, got := range []struct{ where, data string }{{"comparison.json", file}, {"/api/runs/ID", string(detail.Comparison)}} {
		var v any
		if err := json.Unmarshal([]byte(got.data), &v); err != nil {
			t.Fatalf("%s: %v", got.where, err)
		}
		if !reflect.DeepEqual(v, contract) {
			t.Errorf("%s differs from perfbot compare --format json:\n%.600s\nwant\n%.600s", got.where, got.data, want.String())
		}
	}
}
