package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/parse"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/store"
)

// suffixarray is a real run of the standard library's index/suffixarray
// benchmarks (golang/perf's benchproc testdata; see
// parse/testdata/PROVENANCE.md): each benchmark at bits=32 and bits=64,
// ten samples each, in ns/op, MB/s, B/op and allocs/op.
const suffixarray = "../parse/testdata/gobench-golang-perf-suffixarray-subbench-keyvalue.txt"

// realComparison compares the suffixarray run's bits=32 results (the
// baseline, "base") with its bits=64 results (the candidate, "bits64"):
// the 64-bit index is slower and takes twice the memory.
func realComparison(t *testing.T) *compare.Comparison {
	t.Helper()
	rs, err := parse.File(context.Background(), suffixarray, "gobench")
	if err != nil {
		t.Fatal(err)
	}
	var results []*bench.Result
	for _, r := range rs {
		bits, ok := r.Params.Get("bits")
		if !ok {
			t.Fatalf("%s has no bits parameter", r.Benchmark)
		}
		r.Params = r.Params.Without("bits")
		r.Variant = "base"
		if bits == "64" {
			r.Variant = "bits64"
		}
		results = append(results, r)
	}
	cmp, err := compare.Compare(results, compare.Options{Base: "base", Candidates: []string{"bits64"}})
	if err != nil {
		t.Fatal(err)
	}
	cmp.Provenance = provenance.Record{
		Repo: "https://go.googlesource.com/go",
		Sides: []provenance.Side{
			{Variant: "base", Ref: "master", Commit: "7f87d66fe45f1d209b404f397b2258d313cae093"},
			{Variant: "bits64", Ref: "master", Commit: "712aea8b4705aa26cdd0fbe6a4f7be58c5d1bd6f", Patch: "suffixarray-64.patch",
				PatchSubject: "index/suffixarray: use 64-bit indexes"},
		},
		Host:    provenance.Host{Name: "bench-1", OS: "linux", Arch: "amd64", CPU: "Intel(R) Core(TM) i7-8665U CPU @ 1.90GHz", Cores: 8},
		Suites:  []provenance.Suite{{Name: "go", Commands: []string{"go test -run ^$ -bench . -count 10 index/suffixarray"}, Rounds: 10}},
		Started: time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC),
	}
	return cmp
}

// saveRun stores cmp as a finished run measured at baseCommit, posted to
// target (which may be empty).
func saveRun(t *testing.T, st *store.Store, cmp *compare.Comparison, baseCommit, target string, files []store.Artifact) int64 {
	t.Helper()
	ctx := context.Background()
	prov, err := json.Marshal(cmp.Provenance)
	if err != nil {
		t.Fatal(err)
	}
	run := &store.Run{JobKey: "job-" + baseCommit, Suites: "go", BaseRef: cmp.Provenance.Sides[0].Ref,
		BaseCommit: baseCommit, CandidateRef: "master", CandidateCommit: baseCommit + "1",
		Patch: cmp.Provenance.Sides[1].Patch, Worker: "bench-1", Provenance: prov}
	if target != "" {
		run.Venue, run.Target, _ = strings.Cut(target, ":")
	}
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
	if err := st.SaveArtifacts(ctx, id, files); err != nil {
		t.Fatal(err)
	}
	if target != "" {
		venue, where, _ := strings.Cut(target, ":")
		if err := st.RecordPost(ctx, store.Post{Venue: venue, Target: where, JobKey: run.JobKey,
			Link: "https://github.com/acme/store/pull/12#issuecomment-" + baseCommit, State: "failure"}); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// server serves st's pages.
func server(t *testing.T, st *store.Store) *httptest.Server {
	t.Helper()
	ws, err := New(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ws.Handler())
	t.Cleanup(srv.Close)
	return srv
}

// get fetches path and fails the test unless the status is want.
func get(t *testing.T, srv *httptest.Server, path string, want int) (*http.Response, string) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %s, want %d:\n%s", path, resp.Status, want, b.String())
	}
	return resp, b.String()
}

func filled(t *testing.T) (*store.Store, []int64) {
	st := storetest.SQLite(t)
	cmp := realComparison(t)
	var ids []int64
	for i, commit := range []string{"aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc"} {
		target := ""
		if i == 2 {
			target = "github:acme/store#12"
		}
		ids = append(ids, saveRun(t, st, cmp, commit, target, nil))
	}
	return st, ids
}
