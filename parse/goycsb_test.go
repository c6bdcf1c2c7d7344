package parse

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
)

func parseString(t *testing.T, p Parser, in string) ([]*bench.Result, []string, error) {
	t.Helper()
	var warns []string
	ctx := WithWarnings(context.Background(), func(w *SyntaxError) { warns = append(warns, w.Error()) })
	var out []*bench.Result
	err := p.Parse(ctx, strings.NewReader(in), "in.txt", func(r *bench.Result) error {
		if err := r.Validate(); err != nil {
			t.Errorf("invalid result: %v", err)
		}
		out = append(out, r)
		return nil
	})
	return out, warns, err
}

// find returns the value (mean or first sample) of the named result.
func find(t *testing.T, rs []*bench.Result, benchName, metric, unit string) float64 {
	t.Helper()
	for _, r := range rs {
		if r.Benchmark == benchName && r.Metric == metric && r.Unit == unit {
			if len(r.Samples) > 0 {
				return r.Samples[0]
			}
			return r.Summary.Mean
		}
	}
	t.Fatalf("no result %s %s %s", benchName, metric, unit)
	return 0
}

func TestGoYCSBGenerations(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		bench   string
		metric  string
		unit    string
		want    float64
		results int
	}{
		{
			name: "v1.0.1 plain with TOTAL and error rows, final block only",
			in: "INSERT - Takes(s): 10.0, Count: 5, OPS: 0.5, Avg(us): 1, Min(us): 1, Max(us): 1, 50th(us): 1, 90th(us): 1, 95th(us): 1, 99th(us): 1, 99.9th(us): 1, 99.99th(us): 1\n" +
				"Run finished, takes 21m58.9s\n" +
				"READ   - Takes(s): 60.0, Count: 1000, OPS: 16.7, Avg(us): 700, Min(us): 300, Max(us): 9000, 50th(us): 650, 90th(us): 900, 95th(us): 1000, 99th(us): 2000, 99.9th(us): 5000, 99.99th(us): 9000\n" +
				"READ_ERROR - Takes(s): 60.0, Count: 3, OPS: 0.1, Avg(us): 100, Min(us): 90, Max(us): 120, 50th(us): 100, 90th(us): 120, 95th(us): 120, 99th(us): 120, 99.9th(us): 120, 99.99th(us): 120\n" +
				"TOTAL  - Takes(s): 60.0, Count: 1003, OPS: 16.8, Avg(us): 699, Min(us): 90, Max(us): 9000, 50th(us): 650, 90th(us): 900, 95th(us): 1000, 99th(us): 2000, 99.9th(us): 5000, 99.99th(us): 9000\n",
			bench: "READ_ERROR", metric: "p99.9", unit: "us", want: 120, results: 3 * 12,
		},
		{
			name: "table style",
			in: "+-----------+----------+-------+------+---------+---------+---------+----------+----------+----------+----------+------------+-------------+\n" +
				"| OPERATION | TAKES(S) | COUNT | OPS  | AVG(US) | MIN(US) | MAX(US) | 50TH(US) | 90TH(US) | 95TH(US) | 99TH(US) | 99.9TH(US) | 99.99TH(US) |\n" +
				"+-----------+----------+-------+------+---------+---------+---------+----------+----------+----------+----------+------------+-------------+\n" +
				"| READ      |     10.0 | 4990  | 499.0|     988 |     321 |   12000 |      900 |     1200 |     1400 |     3000 |       9000 |       12000 |\n" +
				"+-----------+----------+-------+------+---------+---------+---------+----------+----------+----------+----------+------------+-------------+\n",
			bench: "READ", metric: "Throughput", unit: "ops/s", want: 499, results: 12,
		},
		{
			name:  "json style",
			in:    `[{"Operation":"UPDATE","Takes(s)":"10.0","Count":"12","OPS":"1.2","Avg(us)":"40","Min(us)":"10","Max(us)":"90","99th(us)":"90","99.9th(us)":"90","99.99th(us)":"90"}]` + "\n",
			bench: "UPDATE", metric: "AverageLatency", unit: "us", want: 40, results: 9,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if GoYCSB.Sniff(GoYCSB{}, []byte(tt.in)) == 0 {
				t.Errorf("Sniff = 0")
			}
			rs, _, err := parseString(t, GoYCSB{}, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != tt.results {
				t.Errorf("%d results, want %d", len(rs), tt.results)
			}
			if got := find(t, rs, tt.bench, tt.metric, tt.unit); got != tt.want {
				t.Errorf("%s %s = %v, want %v", tt.bench, tt.metric, got, tt.want)
			}
		})
	}
}

func TestGoYCSBBadValue(t *testing.T) {
	_, _, err := parseString(t, GoYCSB{}, "READ - Takes(s): 10.0, Count: x\n")
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 1 || se.File != "in.txt" {
		t.Fatalf("err = %v, want a SyntaxError at in.txt:1", err)
	}
}
