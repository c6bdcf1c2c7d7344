package parse

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/perfbot/perfbot/bench"
)

// GBenchJSON reads Google Benchmark's JSON (--benchmark_format=json or
// --benchmark_out): {"context": {...}, "benchmarks": [...]}, streamed one
// benchmark at a time, also when every line carries CTest's "NN: " prefix
// and when the input is a fragment of the array.
//
// The name splits as in GBench: "BM_copy/512/threads:8" is benchmark
// "BM_copy" with params arg0=512, threads=8. Each iteration record gives a
// sample of Metric "real_time" and "cpu_time" in its time_unit (repeated
// records with -repetitions accumulate as samples of the same series) and
// one sample per user counter (bytes_per_second in B/s, items_per_second
// in items/s, higher is better; other counters lower, unit "count").
// Aggregate records (_mean, _median, _stddev, _cv) are derived from the
// repetitions and skipped; records with error_occurred are skipped with
// a warning.
type GBenchJSON struct{}

// Name returns "gbench-json".
func (GBenchJSON) Name() string { return "gbench-json" }

// Sniff looks for gbench's record keys.
func (GBenchJSON) Sniff(head []byte) int {
	if bytes.Contains(head, []byte(`"run_type"`)) || bytes.Contains(head, []byte(`"benchmarks"`)) && bytes.Contains(head, []byte(`"time_unit"`)) ||
		bytes.Contains(head, []byte(`"real_time"`)) && bytes.Contains(head, []byte(`"cpu_time"`)) {
		return 95
	}
	return 0
}

var ctestPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\d+: `) })

// stripCTest removes a CTest "NN: " prefix from a line start.
func stripCTest(b []byte) []byte {
	if loc := ctestPrefix().FindIndex(b); loc != nil {
		return b[loc[1]:]
	}
	return b
}

// Parse reads gbench JSON.
func (GBenchJSON) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	sc := newObjectScanner(&lineFilter{r: bufio.NewReaderSize(r, 64<<10), fn: stripCTest}, name, "{[{")
	if sc.firstByte() != '{' {
		// A fragment of the benchmarks array: its top-level objects.
		sc.patterns = []string{"{"}
	}
	for {
		rec, line, ok := sc.next(ctx)
		if !ok {
			break
		}
		if err := gbenchRecord(ctx, rec, name, line, emit); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if sc.trunc {
		return syntaxf(name, sc.start, "gbench JSON record is truncated: the input ends before its closing brace")
	}
	return nil
}

// gbenchRecord emits one benchmarks[] element, which began on line at.
func gbenchRecord(ctx context.Context, raw []byte, name string, at int, emit func(*bench.Result) error) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return syntaxf(name, at, "gbench benchmark record: %v", err)
	}
	str := func(k string) string {
		var s string
		json.Unmarshal(m[k], &s)
		return s
	}
	bname := str("run_name")
	if bname == "" {
		bname = str("name")
	}
	if bname == "" {
		if m["context"] == nil && m["caches"] == nil {
			warnf(ctx, name, at, "object without \"name\" is not a gbench benchmark; skipped")
		}
		return nil
	}
	if str("run_type") == "aggregate" || str("aggregate_name") != "" {
		return nil
	}
	if e := m["error_occurred"]; string(e) == "true" {
		warnf(ctx, name, at, "%s: error_occurred (%s); skipped", bname, str("error_message"))
		return nil
	}
	base, params := gbenchName(bname)
	unit := str("time_unit")
	if unit == "" {
		unit = "ns"
	}
	src := source(name, at)
	out := func(metric, unit string, better bench.Direction, v float64) error {
		return emit(&bench.Result{Benchmark: base, Params: params, Metric: metric, Unit: unit, Better: better, Samples: []float64{v}, Source: src})
	}
	for _, k := range []string{"real_time", "cpu_time"} {
		var v float64
		if err := json.Unmarshal(m[k], &v); err != nil || math.IsNaN(v) {
			warnf(ctx, name, at, "%s: %s missing or not a number; skipped", bname, k)
			continue
		}
		if err := out(k, unit, bench.LowerIsBetter, v); err != nil {
			return err
		}
	}
	known := map[string]bool{"name": true, "run_name": true, "run_type": true, "repetitions": true, "repetition_index": true,
		"threads": true, "iterations": true, "real_time": true, "cpu_time": true, "time_unit": true, "family_index": true,
		"per_family_instance_index": true, "aggregate_name": true, "aggregate_unit": true, "error_occurred": true, "error_message": true, "label": true}
	var counters []string
	for k := range m {
		if !known[k] {
			counters = append(counters, k)
		}
	}
	sort.Strings(counters)
	for _, k := range counters {
		var v float64
		if err := json.Unmarshal(m[k], &v); err != nil {
			continue
		}
		cu, better := gbenchCounterUnit(k)
		if err := out(k, cu, better, v); err != nil {
			return err
		}
	}
	return nil
}

// gbenchCounterUnit gives the unit and direction of a user counter.
func gbenchCounterUnit(k string) (string, bench.Direction) {
	switch k {
	case "bytes_per_second":
		return "B/s", bench.HigherIsBetter
	case "items_per_second":
		return "items/s", bench.HigherIsBetter
	}
	if strings.HasSuffix(k, "_per_second") || strings.HasSuffix(k, "/s") {
		return "1/s", bench.HigherIsBetter
	}
	return "count", bench.LowerIsBetter
}

// gbenchName splits "BM_copy/512/threads:8/real_time" into "BM_copy/real_time"
// and params arg0=512, threads=8.
func gbenchName(full string) (string, bench.Params) {
	parts := strings.Split(full, "/")
	name := []string{parts[0]}
	var ps bench.Params
	arg := 0
	for _, p := range parts[1:] {
		if k, v, ok := strings.Cut(p, ":"); ok && k != "" {
			ps = append(ps, bench.Param{Name: k, Value: v})
			continue
		}
		if _, err := strconv.ParseFloat(p, 64); err == nil {
			ps = append(ps, bench.Param{Name: "arg" + strconv.Itoa(arg), Value: p})
			arg++
			continue
		}
		name = append(name, p)
	}
	if name[0] == "" {
		return full, nil
	}
	return strings.Join(name, "/"), ps
}

// lineFilter rewrites each line of r with fn.
type lineFilter struct {
	r   *bufio.Reader
	fn  func([]byte) []byte
	buf []byte
	err error
	mid bool // inside a line longer than the buffer
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.buf) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, err := f.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if !f.mid {
				line = f.fn(line)
			}
			f.buf = append(f.buf[:0], line...)
			f.mid = true // the rest of this long line is not filtered
			continue
		}
		f.err = err
		if !f.mid {
			line = f.fn(line)
		}
		f.mid = false
		f.buf = append(f.buf[:0], line...)
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}
