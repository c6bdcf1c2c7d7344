package parse

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/perfbot/perfbot/bench"
)

// JMHLog reads JMH's run log, the lines it prints while measuring:
//
//	# Benchmark: org.example.Store.get
//	# Parameters: (size = 10, mode = fast)
//	Iteration   1: 12.380 ops/ms
//	                 ·gc.alloc.rate: 948.886 MB/sec
//
// Each measurement iteration's score is one raw sample (warmup iterations
// are ignored); indented secondary lines under an iteration (gc profiler
// metrics, sample-mode percentiles) become samples of secondary metrics.
// A benchmark's results are emitted when its "Result" block, the next
// benchmark or the end of the input arrives. Output the benchmark itself
// printed between an "Iteration" label and its score is skipped.
type JMHLog struct{}

// Name returns "jmh-log".
func (JMHLog) Name() string { return "jmh-log" }

var (
	jmhIterLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^(?:\[info\]\s*)?Iteration\s+\d+:`) })
	jmhScoreRe  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(-?[0-9][0-9.,]*(?:[eE][-+]?\d+)?|NaN)(?:\s+\S*\(\d+[.,]?\d*%\)\s+(-?[0-9][0-9.,]*(?:[eE][-+]?\d+)?|NaN))?\s+(\S+)\s*$`)
	})
	jmhSecLineRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s+(\S[^:]*):\s+(-?[0-9][0-9.,]*(?:[eE][-+]?\d+)?|NaN|≈ \S+)(?:\s+\S*\(\d+[.,]?\d*%\)\s+\S+)?\s+(\S+)\s*$`)
	})
)

// Sniff looks for "# Benchmark:" and iteration lines.
func (JMHLog) Sniff(head []byte) int {
	if bytes.Contains(head, []byte("# Benchmark: ")) && jmhIterLine().Match(head) {
		return 85
	}
	return 0
}

type jmhLogSeries struct {
	metric  string
	unit    string
	samples []float64
	line    int
}

type jmhLogBench struct {
	name   string
	params bench.Params
	mode   string
	line   int
	series []*jmhLogSeries // [0] is the primary metric
}

func (b *jmhLogBench) add(metric, unit string, v float64, line int) {
	for _, s := range b.series {
		if s.metric == metric && s.unit == unit {
			s.samples = append(s.samples, v)
			return
		}
	}
	b.series = append(b.series, &jmhLogSeries{metric: metric, unit: unit, samples: []float64{v}, line: line})
}

// Parse reads a JMH run log.
func (JMHLog) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	lr := newLineReader(r)
	var cur *jmhLogBench
	var params bench.Params
	mode := ""
	pending := false // an "Iteration" label whose score has not appeared yet
	inIter := false  // the lines after a measured iteration (secondary metrics)
	flush := func() error {
		if cur == nil {
			return nil
		}
		b := cur
		cur = nil
		if len(b.series) == 0 {
			warnf(ctx, name, b.line, "benchmark %s has no complete measurement iteration", b.name)
			return nil
		}
		for _, s := range b.series {
			res := &bench.Result{
				Benchmark: b.name,
				Params:    jmhParams(b.params, b.mode),
				Metric:    s.metric,
				Unit:      s.unit,
				Better:    jmhBetter(s.metric, s.unit),
				Samples:   s.samples,
				Source:    source(name, s.line),
			}
			if err := emit(res); err != nil {
				return err
			}
		}
		return nil
	}
	for lr.next(ctx) {
		raw := lr.Text()
		if strings.HasPrefix(strings.TrimLeft(raw, " "), "[info]") {
			raw = stripWrapper(raw)
		}
		line := strings.TrimSpace(raw)
		switch {
		case strings.HasPrefix(line, "# Benchmark: "):
			bn := strings.TrimSpace(strings.TrimPrefix(line, "# Benchmark: "))
			if cur != nil && cur.name != bn {
				if err := flush(); err != nil {
					return err
				}
			}
			if cur == nil {
				cur = &jmhLogBench{name: bn, mode: mode, line: lr.Line()}
			}
			params = nil
			pending, inIter = false, false
			continue
		case strings.HasPrefix(line, "# Benchmark mode: "):
			mode = jmhModeName(strings.TrimPrefix(line, "# Benchmark mode: "))
			if cur != nil {
				cur.mode = mode
			}
			continue
		case strings.HasPrefix(line, "# Parameters: "):
			params = parseJMHLogParams(strings.TrimPrefix(line, "# Parameters: "))
			if cur != nil {
				if len(cur.series) > 0 && cur.params.String() != params.String() {
					n := cur.name
					if err := flush(); err != nil {
						return err
					}
					cur = &jmhLogBench{name: n, mode: mode, line: lr.Line()}
				}
				cur.params = params
			}
			continue
		case strings.HasPrefix(line, "# JMH version"):
			if err := flush(); err != nil {
				return err
			}
			pending, inIter = false, false
			continue
		case strings.HasPrefix(line, "Result \""), strings.HasPrefix(line, "Result:"):
			if err := flush(); err != nil {
				return err
			}
			pending, inIter = false, false
			continue
		case strings.HasPrefix(line, "# "):
			pending, inIter = false, false
			continue
		case strings.HasPrefix(line, "Iteration ") && strings.Contains(line, ":"):
			inIter = false
			if cur == nil {
				continue
			}
			_, rest, _ := strings.Cut(line, ":")
			if v, unit, ok := jmhLogScore(strings.TrimSpace(rest)); ok {
				cur.add("", unit, v, lr.Line())
				inIter = true
				pending = false
			} else {
				pending = true
			}
			continue
		}
		if cur == nil {
			continue
		}
		if pending {
			if v, unit, ok := jmhLogScore(line); ok {
				cur.add("", unit, v, lr.Line())
				pending = false
				inIter = true
			}
			continue
		}
		if inIter {
			if line == "" {
				continue
			}
			m := jmhSecLineRe().FindStringSubmatch(raw)
			if m == nil {
				inIter = false
				continue
			}
			metric := jmhMetricName("·" + strings.TrimSpace(m[1]))
			if m[2] == "NaN" {
				warnf(ctx, name, lr.Line(), "%s: value is NaN; skipped", metric)
				continue
			}
			if strings.HasPrefix(m[2], "≈") {
				if v, ok := jmhApprox(m[2]); ok {
					warnf(ctx, name, lr.Line(), "%s: value printed only approximately (%s); read as %g", metric, m[2], v)
					cur.add(metric, m[3], v, lr.Line())
				} else {
					warnf(ctx, name, lr.Line(), "%s: cannot read the approximate value %q; skipped", metric, m[2])
				}
				continue
			}
			v, err := parseLocale(m[2])
			if err != nil {
				warnf(ctx, name, lr.Line(), "%s: %v", metric, err)
				continue
			}
			cur.add(metric, m[3], v, lr.Line())
		}
	}
	if err := lr.Err(); err != nil {
		return err
	}
	return flush()
}

// jmhLogScore reads an iteration's score: "12.380 ops/ms" or
// "2.544 ±(99.9%) 0.005 ms/op".
func jmhLogScore(s string) (float64, string, bool) {
	m := jmhScoreRe().FindStringSubmatch(s)
	if m == nil || m[1] == "NaN" {
		return 0, "", false
	}
	v, err := parseLocale(m[1])
	if err != nil {
		return 0, "", false
	}
	return v, m[3], true
}

// parseJMHLogParams reads "(A = 1, B = x)".
func parseJMHLogParams(s string) bench.Params {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "("), ")")
	var ps bench.Params
	for _, part := range strings.Split(s, ", ") {
		k, v, ok := strings.Cut(part, " = ")
		if !ok {
			if len(ps) > 0 {
				ps[len(ps)-1].Value += ", " + part
			}
			continue
		}
		ps = append(ps, bench.Param{Name: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	return ps
}
