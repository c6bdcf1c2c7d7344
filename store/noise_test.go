package store

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
)

func TestNoise(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		row := &compare.Row{Benchmark: "BenchmarkScan", Group: "example.com/db", Params: bench.Params{{Name: "threads", Value: "10"}}, Unit: "sec/op"}
		k, err := NoiseKeyOf(row)
		if err != nil {
			t.Fatal(err)
		}
		other := k
		other.Unit = "B/op"
		t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		for i, d := range []float64{1.5, -0.5, 2, -1} {
			if err := s.AddNoise(ctx, "bench-1", t0.Add(time.Duration(i)*time.Hour), []NoiseDelta{{k, d}, {other, 0}, {k, math.NaN()}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.AddNoise(ctx, "bench-2", t0, []NoiseDelta{{k, 9}}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Noise(ctx, "bench-1", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || len(got[k]) != 4 || got[k][0] != 1.5 || got[k][3] != -1 || len(got[other]) != 4 {
			t.Errorf("noise of bench-1 = %v, want 4 deltas of each key, oldest first", got)
		}
		if k.Params != `{"threads":"10"}` {
			t.Errorf("params key %q", k.Params)
		}
		got, err = s.Noise(ctx, "bench-1", 2)
		if err != nil || len(got[k]) != 2 || got[k][0] != 2 {
			t.Errorf("latest 2 = %v, %v; want [2 -1]", got[k], err)
		}
		got, err = s.Noise(ctx, "nowhere", 0)
		if err != nil || len(got) != 0 {
			t.Errorf("unknown host: %v, %v", got, err)
		}
	})
}
