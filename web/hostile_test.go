package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/store"
)

// hostile strings come from benchmark output, patches and requests: each
// must stay text on every page.
const (
	hostileName   = `<script>alert("name")</script>`
	hostileParam  = `"'><img src=x onerror=alert(1)>{{.}}`
	hostileGroup  = `{{template "content"}}</table>`
	hostileTitle  = `<svg onload=alert('title')>`
	hostileRef    = `refs/heads/"><script>alert(2)</script>`
	hostileError  = `build failed: </pre><script>alert(3)</script>`
	hostileLink   = `javascript:alert(4)`
	hostileTarget = `acme/store#1"><b>`
)

func TestHostileNamesStayText(t *testing.T) {
	st := storetest.SQLite(t)
	ctx := context.Background()
	var results []*bench.Result
	for i, v := range []float64{100, 101, 99, 100, 102, 98, 100, 101} {
		variant := "base"
		if i%2 == 1 {
			variant = hostileRef
			v *= 2
		}
		results = append(results, &bench.Result{Benchmark: hostileName, Group: hostileGroup, Variant: variant,
			Params: bench.Params{{Name: "threads", Value: hostileParam}}, Unit: "ns/op", Samples: []float64{v}})
	}
	cmp, err := compare.Compare(results, compare.Options{Base: "base", Candidates: []string{hostileRef}})
	if err != nil {
		t.Fatal(err)
	}
	cmp.Warnings = []string{hostileError}
	cmp.Failures = []provenance.Failure{{Variant: hostileRef, Stage: "build", Message: hostileError, LogTail: hostileError}}
	cmp.Provenance = provenance.Record{Repo: hostileRef, Sides: []provenance.Side{{Variant: "base", Ref: hostileRef},
		{Variant: hostileRef, Ref: hostileRef, PatchSubject: hostileTitle}}}
	prov, _ := json.Marshal(cmp.Provenance)
	run := &store.Run{JobKey: hostileName, Venue: "github", Target: hostileTarget, BaseRef: hostileRef, CandidateRef: hostileRef,
		Patch: hostileTitle, Title: hostileTitle, Error: hostileError, Provenance: prov}
	id, err := st.RecordRun(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := report.Storable(cmp)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SaveComparison(ctx, id, stored); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordPost(ctx, store.Post{Venue: "github", Target: hostileTarget, JobKey: hostileName, Link: hostileLink}); err != nil {
		t.Fatal(err)
	}
	srv := server(t, st)

	var list []Series
	_, js := get(t, srv, "/api/benchmarks?q="+url.QueryEscape("<script>"), 200)
	if err := json.Unmarshal([]byte(js), &list); err != nil || len(list) != 1 {
		t.Fatalf("search for <script>: %v\n%s", err, js)
	}
	pages := []string{"/", fmt.Sprintf("/runs/%d", id), list[0].URL, "/benchmarks?q=" + url.QueryEscape(hostileName),
		"/benchmarks/" + url.PathEscape(hostileName)}
	for _, path := range pages {
		_, body := get(t, srv, path, 200)
		for _, bad := range []string{"<script>", "<img src=x", "<svg onload", "</pre><script", `"><b>`, `href="javascript:`} {
			if strings.Contains(body, bad) {
				i := strings.Index(body, bad)
				t.Errorf("%s: unescaped %q: …%s…", path, bad, body[max(0, i-80):min(len(body), i+80)])
			}
		}
		if !strings.Contains(body, "&lt;script&gt;") {
			t.Errorf("%s does not show the name as text", path)
		}
	}
	_, body := get(t, srv, fmt.Sprintf("/runs/%d", id), 200)
	// Template actions in data are text, never executed.
	for _, want := range []string{"&lt;svg onload=alert(&#39;title&#39;)&gt;", "&lt;/pre&gt;&lt;script&gt;alert(3)&lt;/script&gt;",
		"&lt;img src=x onerror=alert(1)&gt;{{.}}", "{{template &#34;content&#34;}}&lt;/table&gt;"} {
		if !strings.Contains(body, want) {
			t.Errorf("run page lacks the escaped text %s", want)
		}
	}
	// The raw results keep one benchmark per line whatever the name holds.
	resp, raw := get(t, srv, fmt.Sprintf("/runs/%d/results/base", id), 200)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("raw results served as %s", resp.Header.Get("Content-Type"))
	}
	if n := strings.Count(raw, "\nBenchmark"); n != 4 {
		t.Errorf("raw results have %d benchmark lines, want 4:\n%s", n, raw)
	}
}
