package parse

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/perfbot/perfbot/bench"
)

// Criterion reads Criterion.rs console output and the bencher format
// (--output-format bencher, also libtest's #[bench]):
//
//	file                    time:   [320.62 ps 323.90 ps 327.55 ps]
//	                        thrpt:  [1.2938 Melem/s 1.2961 Melem/s 1.2987 Melem/s]
//	test Create Realm ... bench:         329 ns/iter (+/- 4)
//
// A "time:" line (on the id's line or, for long ids, the next one) is a
// Summary: the middle estimate as Mean, half the width of Criterion's 95 %
// interval as Error, N from the "Collecting N samples" progress line when
// present. Units stay as printed ("ps", "ns", "us" for µs, "ms", "s").
// "thrpt:" becomes Metric "thrpt" scaled to base units ("elem/s", "B/s").
// Bencher lines are Summaries in "ns/iter" with no error: their "+/-" is
// the spread between samples, not an interval. Change, verdict, outlier,
// warning and libtest lines are ignored.
type Criterion struct{}

// Name returns "criterion".
func (Criterion) Name() string { return "criterion" }

var (
	crBencher = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^test (.+) \.\.\. bench:\s+([\d,.]+) (\S+)(?: \(\+/- ([\d,.]+)\))?\s*$`)
	})
	crCollect = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Benchmarking (.+): Collecting (\d+) samples`) })
)

// Sniff looks for "time:   [" or bencher lines.
func (Criterion) Sniff(head []byte) int {
	if bytes.Contains(head, []byte("time:   [")) {
		return 95
	}
	if bytes.Contains(head, []byte(" ... bench: ")) {
		return 90
	}
	return 0
}

// Parse reads Criterion console or bencher output.
func (Criterion) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	lr := newLineReader(r)
	lastID := "" // a line that may be a long benchmark id
	curID := ""  // the id of the last time: line
	samples := map[string]int{}
	for lr.next(ctx) {
		line := lr.Text()
		t := strings.TrimSpace(line)
		if m := findIf(strings.Contains(t, " bench: "), crBencher(), t); m != nil {
			v, err := parseGrouped(m[2])
			if err != nil {
				warnf(ctx, name, lr.Line(), "%s: %v; skipped", m[1], err)
				continue
			}
			res := &bench.Result{Benchmark: m[1], Unit: m[3], Better: bench.DirectionOf(m[3]), Summary: summary(v, 0, 0, 0), Source: source(name, lr.Line())}
			if err := emit(res); err != nil {
				return err
			}
			lastID = ""
			continue
		}
		if m := findIf(strings.HasPrefix(t, "Benchmarking "), crCollect(), t); m != nil {
			n, _ := strconv.Atoi(m[2])
			samples[m[1]] = n
			if len(samples) > 64 {
				samples = map[string]int{m[1]: n}
			}
			continue
		}
		if m := crTimeLine(t); m != nil {
			id := m[1]
			if id == "" {
				id = lastID
			}
			if m[2] == "thrpt" {
				id = curID
			}
			lastID = ""
			if id == "" {
				warnf(ctx, name, lr.Line(), "%s line without a benchmark id; skipped", m[2])
				continue
			}
			lo, lu, errLo := crValue(m[3], m[4])
			est, eu, errEst := crValue(m[5], m[6])
			hi, hu, errHi := crValue(m[7], m[8])
			if errLo != nil || errEst != nil || errHi != nil || lu != eu || eu != hu {
				warnf(ctx, name, lr.Line(), "%s: expected \"[low unit est unit high unit]\"; skipped", id)
				continue
			}
			res := &bench.Result{
				Benchmark: id, Unit: eu, Better: bench.DirectionOf(eu),
				Summary: summary(est, (hi-lo)/2, 0.95, samples[id]),
				Source:  source(name, lr.Line()),
			}
			if m[2] == "thrpt" {
				res.Metric = "thrpt"
				res.Better = bench.HigherIsBetter
			} else {
				res.Better = bench.LowerIsBetter
				curID = id
			}
			if err := emit(res); err != nil {
				return err
			}
			continue
		}
		switch {
		case t == "" || line != t && strings.HasPrefix(line, " ") || strings.HasPrefix(t, "Benchmarking ") ||
			strings.HasPrefix(t, "Found ") || strings.HasPrefix(t, "running ") || strings.HasPrefix(t, "test ") ||
			strings.HasPrefix(t, "Running ") || strings.HasPrefix(t, "Warning") || strings.HasPrefix(t, "WARNING") ||
			strings.Contains(t, ":") && strings.Contains(t, ". "):
			lastID = ""
		default:
			lastID = t
		}
	}
	return lr.Err()
}

// crTimeLine splits "id  time:   [1 ns 2 ns 3 ns]" (the id may be absent)
// into the id, "time" or "thrpt" and the six bracketed fields, in the
// layout of a regexp submatch: m[1] id, m[2] kind, m[3:9] fields. It
// returns nil for other lines.
func crTimeLine(t string) []string {
	for _, kind := range []string{"time:", "thrpt:"} {
		i := strings.Index(t, kind)
		if i < 0 || i > 0 && t[i-1] != ' ' {
			continue
		}
		rest := strings.TrimLeft(t[i+len(kind):], " ")
		if !strings.HasPrefix(rest, "[") || !strings.HasSuffix(rest, "]") {
			continue
		}
		f := strings.Fields(rest[1 : len(rest)-1])
		if len(f) != 6 {
			continue
		}
		return append([]string{t, strings.TrimSpace(t[:i]), strings.TrimSuffix(kind, ":")}, f...)
	}
	return nil
}

// crValue reads "3.4623" "µs" into a value and a normalized unit: times
// keep their unit (µs written "us"); throughputs are scaled to base units
// ("1.2961" "Melem/s" -> 1.2961e6 "elem/s"; "GiB/s" -> B/s).
func crValue(num, unit string) (float64, string, error) {
	v, err := parseFloat(num)
	if err != nil {
		return 0, "", err
	}
	switch unit {
	case "µs", "μs":
		return v, "us", nil
	case "ps", "ns", "us", "ms", "s":
		return v, unit, nil
	}
	if strings.HasSuffix(unit, "/s") {
		sv, rest, err := siValue(num + unit)
		if err == nil && rest != "" {
			return sv, rest, nil
		}
	}
	return v, unit, nil
}
