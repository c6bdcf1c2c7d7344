package web

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/store"
)

// BenchmarkPages measures the pages over a store of benches benchmarks
// measured by runs runs (each run stores a baseline and a candidate
// result per benchmark). PERFBOT_WEB_SCALE=BENCHESxRUNS sets the size
// (default 1000x20); the 95th percentile of each page is reported.
func BenchmarkPages(b *testing.B) {
	benches, runs := 1000, 20
	if v := os.Getenv("PERFBOT_WEB_SCALE"); v != "" {
		if _, err := fmt.Sscanf(v, "%dx%d", &benches, &runs); err != nil {
			b.Fatalf("PERFBOT_WEB_SCALE=%q: want BENCHESxRUNS", v)
		}
	}
	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLite, filepath.Join(b.TempDir(), "perfbot.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Now()
	var last int64
	for r := range runs {
		cmp := &compare.Comparison{Base: "base", Candidates: []string{"patch"}}
		for i := range benches {
			samples := func(centre float64) []float64 {
				s := make([]float64, 6)
				for j := range s {
					s[j] = centre * (1 + 0.02*rng.NormFloat64())
				}
				slices.Sort(s)
				return s
			}
			base, cand := samples(1000+float64(i)), samples(1000+float64(i)+float64(r%3))
			cmp.Rows = append(cmp.Rows, compare.Row{Benchmark: "Bench" + strconv.Itoa(i/10), Group: "pkg" + strconv.Itoa(i%7),
				Params: bench.Params{{Name: "size", Value: strconv.Itoa(i % 10)}}, Unit: "ns/op",
				Base: &compare.Cell{Center: base[3], Lo: base[0], Hi: base[5], N: 6, Samples: base},
				Candidates: []compare.Candidate{{Variant: "patch", Cell: compare.Cell{Center: cand[3], Lo: cand[0], Hi: cand[5], N: 6, Samples: cand},
					Verdict: compare.Same}}})
		}
		last, err = st.RecordRun(ctx, &store.Run{JobKey: "scale", BaseRef: "main", BaseCommit: fmt.Sprintf("%040d", r),
			CandidateRef: "pull/" + strconv.Itoa(r), Status: store.StatusDone})
		if err != nil {
			b.Fatal(err)
		}
		if err := st.SaveComparison(ctx, last, cmp); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("filled %d results in %v", 2*benches*runs, time.Since(start).Round(time.Second))
	ws, err := New(st, nil)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(ws.Handler())
	defer srv.Close()
	for _, page := range []string{"/", fmt.Sprintf("/runs/%d", last), "/benchmarks?q=bench12+size=3",
		"/benchmarks/Bench42?group=pkg3&params=%7B%22size%22%3A%223%22%7D&unit=ns%2Fop&ref=main", "/api/benchmarks?q=pkg5"} {
		b.Run(page, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				t0 := time.Now()
				resp, err := http.Get(srv.URL + page)
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("%s: %s", page, resp.Status)
				}
				took = append(took, time.Since(t0))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}
