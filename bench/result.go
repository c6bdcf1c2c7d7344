// Package bench holds perfbot's common model of a benchmark result: one
// benchmark, under one set of parameters, on one variant, for one metric.
//
// Every parser produces these values, the comparison consumes them and the
// history store keeps them. A Result carries either raw samples (Go
// benchmarks, JMH rawData, repeated runs) or only the summary its tool printed
// (JMH text tables, YCSB), never an invented mix of the two.
package bench

import (
	"fmt"
	"math"
	"strings"
)

// Result is one measured metric of one benchmark under one parameter set.
type Result struct {
	// Benchmark is the benchmark's name without its parameters, such as
	// "BenchmarkScan" or "org.apache.aurora.benchmark.TaskStoreBenchmarks.getJobKeys".
	Benchmark string
	// Group is the package, class or file the benchmark belongs to, such as
	// Go's "pkg:" line; empty when the tool names none.
	Group string
	// Params are the benchmark's parameters in the order the tool gave them,
	// such as numTasks=50000 or threads=10.
	Params Params
	// Unit is the normalized unit of the metric: "ns/op", "ops/s", "us",
	// "B/op", "allocs/op", "QPS", "tps", "cycles" and so on.
	Unit string
	// Metric names what was measured when the unit alone does not, such as
	// "p99" for a latency percentile in "us" or "Throughput" for YCSB's
	// overall throughput. Empty when the unit says it all.
	Metric string
	// Better says which way an improvement goes.
	Better Direction
	// Samples are the raw measurements, one per iteration, round or run.
	Samples []float64
	// Summary is what the tool printed when it gave no raw samples. Nil when
	// Samples is set.
	Summary *Summary
	// Variant names the side this result was measured on ("base", a ref, a
	// configuration). Parsers leave it empty; the runner sets it.
	Variant string
	// Source says where the result was read, as "file:line".
	Source string
}

// Summary is a tool's own summary of a measurement it did not expose sample by
// sample.
type Summary struct {
	// Mean is the reported score or average.
	Mean float64
	// Error is the half-width of the interval around Mean at Confidence, or
	// 0 when the tool gave none.
	Error float64
	// Confidence is the confidence level of Error, such as 0.999 for JMH; 0
	// when unknown.
	Confidence float64
	// N is the number of measurements behind Mean (0 when unknown).
	N int
}

// Simulated is the Metric of counts from a CPU simulation (Valgrind's
// cachegrind): instructions and estimated cycles, nearly deterministic,
// blind to syscalls, I/O waits, lock contention and several cores.
const Simulated = "simulated"

// MetricName is the name shown for the result's metric: Metric and Unit
// together when both are set, else the unit; "simulated: instructions/op"
// for a simulated count.
func (r *Result) MetricName() string {
	if r.Metric == Simulated && r.Unit != "" {
		return Simulated + ": " + r.Unit
	}
	if r.Metric == "" {
		return r.Unit
	}
	if r.Unit == "" {
		return r.Metric
	}
	return r.Metric + " (" + r.Unit + ")"
}

// Key identifies the series a result belongs to, independent of its variant:
// benchmark, parameters, metric and unit.
func (r *Result) Key() string {
	var b strings.Builder
	if r.Group != "" {
		b.WriteString(r.Group)
		b.WriteString(" | ")
	}
	b.WriteString(r.Benchmark)
	for _, p := range r.Params {
		b.WriteByte(' ')
		b.WriteString(p.Name)
		b.WriteByte('=')
		b.WriteString(p.Value)
	}
	b.WriteString(" | ")
	b.WriteString(r.Metric)
	b.WriteString(" | ")
	b.WriteString(r.Unit)
	return b.String()
}

// FullName is the benchmark's name with its parameters in Go's sub-benchmark
// form: "getJobKeys/numTasks=10000".
func (r *Result) FullName() string {
	if len(r.Params) == 0 {
		return r.Benchmark
	}
	return r.Benchmark + "/" + r.Params.String()
}

// Count is the number of measurements behind the result.
func (r *Result) Count() int {
	if len(r.Samples) > 0 {
		return len(r.Samples)
	}
	if r.Summary != nil {
		return r.Summary.N
	}
	return 0
}

// Validate reports what makes r unusable for a comparison.
func (r *Result) Validate() error {
	switch {
	case r.Benchmark == "":
		return fmt.Errorf("result has no benchmark name")
	case r.Unit == "" && r.Metric == "":
		return fmt.Errorf("benchmark %q has neither unit nor metric", r.Benchmark)
	case len(r.Samples) == 0 && r.Summary == nil:
		return fmt.Errorf("benchmark %q (%s) has neither samples nor a summary", r.Benchmark, r.MetricName())
	case len(r.Samples) > 0 && r.Summary != nil:
		return fmt.Errorf("benchmark %q (%s) has both samples and a summary", r.Benchmark, r.MetricName())
	case r.Summary != nil && !finite(r.Summary.Mean):
		return fmt.Errorf("benchmark %q (%s): value %v is not a finite number", r.Benchmark, r.MetricName(), r.Summary.Mean)
	case r.Summary != nil && math.IsInf(r.Summary.Error, 0):
		return fmt.Errorf("benchmark %q (%s): error %v is not a finite number", r.Benchmark, r.MetricName(), r.Summary.Error)
	}
	for _, v := range r.Samples {
		if !finite(v) {
			return fmt.Errorf("benchmark %q (%s): value %v is not a finite number", r.Benchmark, r.MetricName(), v)
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
