package flame

import (
	"sort"
	"strings"
)

// benchRunner is the frame of Go's testing package that calls a benchmark
// function, and of sub-benchmarks' closures, b.N times.
const benchRunner = "testing.(*B).runN"

// Other names the part of a split profile spent outside any benchmark
// function (the runtime's background work, the test binary's start).
const Other = ""

// SplitBenchmarks divides a Go test binary's CPU profile, which covers
// every benchmark of its package, by the benchmark each sample ran in: the
// function called by the innermost testing.(*B).runN frame, with the
// package path and any closure suffix cut off ("example.org/store.
// BenchmarkAppend.func1" is BenchmarkAppend). Each part keeps its own
// weights, total and sample count. Samples under no runN frame go to the
// part named Other, and so do samples of runN's own work (the runtime.GC
// it calls before each run names no benchmark); the names are returned
// sorted, Other left out. A
// profile without a runN frame (folded stacks of another language) gives
// no names.
func (p *Profile) SplitBenchmarks() (map[string]*Profile, []string) {
	parts := map[string]*Profile{}
	for stack, w := range p.Stacks {
		name := benchmarkOf(stack)
		q := parts[name]
		if q == nil {
			q = &Profile{Unit: p.Unit}
			parts[name] = q
		}
		q.add(stack, w, p.counts[stack])
	}
	var names []string
	for n := range parts {
		if n != Other {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return parts, names
}

// benchmarkOf is the benchmark a root-first stack ran in, or Other: the
// function the innermost runN frame calls, when it is a benchmark.
func benchmarkOf(stack string) string {
	frames := strings.Split(stack, ";")
	for i := len(frames) - 2; i >= 0; i-- {
		if frames[i] == benchRunner {
			if name := benchmarkName(frames[i+1]); strings.HasPrefix(name, "Benchmark") {
				return name
			}
			return Other
		}
	}
	return Other
}

// benchmarkName cuts a function's package path, type parameters and
// closure suffixes: "example.org/x/store.BenchmarkAppend.func1.2" is
// "BenchmarkAppend".
func benchmarkName(fn string) string {
	if i := strings.IndexByte(fn, '['); i >= 0 {
		fn = fn[:i]
	}
	if i := strings.LastIndexByte(fn, '/'); i >= 0 {
		fn = fn[i+1:]
	}
	parts := strings.Split(fn, ".")
	if len(parts) >= 2 {
		return parts[1]
	}
	return fn
}
