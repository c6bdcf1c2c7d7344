package parse

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/perfbot/perfbot/bench"
)

// JMHJSON reads the file JMH writes with -rf json: an array of run records.
//
// The primary metric's rawData ([fork][iteration]) become the samples; in
// sample mode, where JMH gives rawDataHistogram ([fork][iteration][[value,
// count]...]) instead, each iteration's mean (the score JMH prints for the
// iteration) becomes a sample. Secondary metrics (gc profiler, sample-mode
// percentiles "method·p0.99", user counters) become results of their own
// with their rawData as samples; a sample-mode record whose secondary
// metrics lack the percentiles gets them from scorePercentiles ("p50",
// "p99.9" Summaries). A metric without raw data falls back to a
// Summary of score and scoreError at 99.9%. "NaN" strings are accepted
// wherever JMH writes them; NaN samples are dropped with a warning.
//
// The input is read record by record, so a large file is parsed in bounded
// memory; a fragment yields the complete records it holds and then an
// error naming the line where the truncated record began.
type JMHJSON struct{}

// Name returns "jmh-json".
func (JMHJSON) Name() string { return "jmh-json" }

// Sniff looks for JMH's record keys.
func (JMHJSON) Sniff(head []byte) int {
	if bytes.Contains(head, []byte(`"primaryMetric"`)) || bytes.Contains(head, []byte(`"rawDataHistogram"`)) ||
		bytes.Contains(head, []byte(`"scorePercentiles"`)) ||
		bytes.Contains(head, []byte(`"benchmark"`)) && bytes.Contains(head, []byte(`"mode"`)) && bytes.Contains(head, []byte(`"measurementIterations"`)) {
		return 95
	}
	return 0
}

// jflt is a JSON number that JMH may also write as the strings "NaN",
// "Infinity" or "-Infinity".
type jflt float64

func (f *jflt) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		switch s {
		case "NaN":
			*f = jflt(math.NaN())
		case "Infinity":
			*f = jflt(math.Inf(1))
		case "-Infinity":
			*f = jflt(math.Inf(-1))
		default:
			return fmt.Errorf("expected a number, got %q", s)
		}
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = jflt(v)
	return nil
}

type jmhJSONMetric struct {
	Score            *jflt           `json:"score"`
	ScoreError       jflt            `json:"scoreError"`
	ScoreUnit        string          `json:"scoreUnit"`
	ScorePercentiles json.RawMessage `json:"scorePercentiles"`
	RawData          [][]jflt        `json:"rawData"`
	RawDataHistogram [][][][]jflt    `json:"rawDataHistogram"`
}

type jmhJSONRecord struct {
	Benchmark             string          `json:"benchmark"`
	Mode                  string          `json:"mode"`
	Forks                 int             `json:"forks"`
	MeasurementIterations int             `json:"measurementIterations"`
	Params                bench.Params    `json:"params"`
	PrimaryMetric         *jmhJSONMetric  `json:"primaryMetric"`
	SecondaryMetrics      json.RawMessage `json:"secondaryMetrics"`
}

// Parse reads JMH JSON.
func (JMHJSON) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	// Records are the elements of the top-level array, or, in a fragment
	// cut out of one, the top-level objects.
	sc := newObjectScanner(r, name, "[{", "{")
	for {
		rec, line, ok := sc.next(ctx)
		if !ok {
			break
		}
		var jr jmhJSONRecord
		if err := json.Unmarshal(rec, &jr); err != nil {
			return syntaxf(name, line, "JMH record: %v", err)
		}
		if jr.Benchmark == "" || jr.PrimaryMetric == nil {
			// An object that is not a run record: in a fragment, the
			// tail of a record cut at its start.
			warnf(ctx, name, line, "object is not a JMH run record (no benchmark and primaryMetric); skipped")
			continue
		}
		if err := jmhJSONEmit(ctx, &jr, name, line, emit); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if sc.trunc {
		return syntaxf(name, sc.start, "JMH JSON record is truncated: the input ends before its closing brace")
	}
	return nil
}

func jmhJSONEmit(ctx context.Context, jr *jmhJSONRecord, name string, line int, emit func(*bench.Result) error) error {
	params := jmhParams(jr.Params, jr.Mode)
	src := source(name, line)
	if res := jmhJSONResult(ctx, jr, jr.PrimaryMetric, "", params, name, line); res != nil {
		res.Source = src
		if err := emit(res); err != nil {
			return err
		}
	}
	sawPercentiles := false
	if len(jr.SecondaryMetrics) == 0 {
		return jmhJSONPercentiles(ctx, jr, params, name, line, src, sawPercentiles, emit)
	}
	// Decode secondary metrics in file order.
	dec := json.NewDecoder(bytes.NewReader(jr.SecondaryMetrics))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return syntaxf(name, line, "secondaryMetrics of %s: expected an object", jr.Benchmark)
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return syntaxf(name, line, "secondaryMetrics of %s: %v", jr.Benchmark, err)
		}
		var m jmhJSONMetric
		if err := dec.Decode(&m); err != nil {
			return syntaxf(name, line, "secondary metric %v of %s: %v", kt, jr.Benchmark, err)
		}
		key, _ := kt.(string)
		metric := jmhMetricName(key)
		if metric == "" {
			continue
		}
		if strings.HasPrefix(metric, "p") && strings.Trim(metric[1:], "0123456789.") == "" {
			sawPercentiles = true
		}
		if res := jmhJSONResult(ctx, jr, &m, metric, params, name, line); res != nil {
			res.Source = src
			if err := emit(res); err != nil {
				return err
			}
		}
	}
	return jmhJSONPercentiles(ctx, jr, params, name, line, src, sawPercentiles, emit)
}

// jmhJSONPercentiles emits a sample-mode record's scorePercentiles as
// Metrics "p50", "p99"... when its secondary metrics do not already carry
// them (JMH writes both; tools that trim the file may drop either). They
// are Summaries without an error: points of the distribution of all
// samples.
func jmhJSONPercentiles(ctx context.Context, jr *jmhJSONRecord, params bench.Params, name string, line int, src string, saw bool, emit func(*bench.Result) error) error {
	pm := jr.PrimaryMetric
	if saw || jr.Mode != "sample" || len(pm.ScorePercentiles) == 0 || pm.ScoreUnit == "" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(pm.ScorePercentiles))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return syntaxf(name, line, "scorePercentiles of %s: expected an object", jr.Benchmark)
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return syntaxf(name, line, "scorePercentiles of %s: %v", jr.Benchmark, err)
		}
		var v jflt
		if err := dec.Decode(&v); err != nil {
			return syntaxf(name, line, "scorePercentiles of %s: %v", jr.Benchmark, err)
		}
		key, _ := kt.(string)
		p, err := parseFloat(key)
		if err != nil || math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			warnf(ctx, name, line, "%s: percentile %q = %v is not usable; skipped", jr.Benchmark, key, float64(v))
			continue
		}
		res := &bench.Result{
			Benchmark: jr.Benchmark, Params: params, Metric: percentileMetric(p, false), Unit: pm.ScoreUnit,
			Better: bench.LowerIsBetter, Summary: summary(float64(v), 0, 0, 0), Source: src,
		}
		if err := emit(res); err != nil {
			return err
		}
	}
	return nil
}

func jmhJSONResult(ctx context.Context, jr *jmhJSONRecord, m *jmhJSONMetric, metric string, params bench.Params, name string, line int) *bench.Result {
	label := jr.Benchmark
	if metric != "" {
		label += ":" + metric
	}
	unit := m.ScoreUnit
	if unit == "" || unit == "---" {
		warnf(ctx, name, line, "%s has no unit; skipped", label)
		return nil
	}
	res := &bench.Result{
		Benchmark: jr.Benchmark,
		Params:    params,
		Metric:    metric,
		Unit:      unit,
		Better:    jmhBetter(metric, unit),
	}
	dropped := 0
	for _, fork := range m.RawData {
		for _, v := range fork {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				dropped++
			} else {
				res.Samples = append(res.Samples, f)
			}
		}
	}
	if len(m.RawData) == 0 {
		for _, fork := range m.RawDataHistogram {
			for _, iter := range fork {
				var sum, n float64
				for _, bin := range iter {
					if len(bin) != 2 {
						continue
					}
					sum += float64(bin[0]) * float64(bin[1])
					n += float64(bin[1])
				}
				if n > 0 && !math.IsNaN(sum) && !math.IsInf(sum, 0) {
					res.Samples = append(res.Samples, sum/n)
				}
			}
		}
	}
	if dropped > 0 {
		warnf(ctx, name, line, "%s: %d raw values are NaN or infinite; dropped", label, dropped)
	}
	if len(res.Samples) > 0 {
		return res
	}
	if m.Score == nil || math.IsNaN(float64(*m.Score)) || math.IsInf(float64(*m.Score), 0) {
		warnf(ctx, name, line, "%s has neither raw data nor a finite score; skipped", label)
		return nil
	}
	e := float64(m.ScoreError)
	conf := 0.999
	if math.IsNaN(e) || math.IsInf(e, 0) {
		e, conf = 0, 0
	}
	n := jr.Forks * jr.MeasurementIterations
	res.Summary = summary(float64(*m.Score), e, conf, n)
	return res
}
