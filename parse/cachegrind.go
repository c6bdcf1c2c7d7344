package parse

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/perfbot/perfbot/bench"
)

// Cachegrind reads the output file of Valgrind's cachegrind
// (cachegrind.out.PID, --cachegrind-out-file): "desc:" lines, a "cmd:"
// line, an "events:" line naming the counted events (Ir, and with
// --cache-sim=yes I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw), "fl=" and "fn="
// lines followed by one line per source line ("LINE count count ..."), and
// a closing "summary:" line with the whole program's totals.
//
// It yields the whole process, named by its command: the simulated
// instruction count (unit "instructions") and, when the cache was
// simulated, the estimated cycles (unit "est-cycles", see EstCycles), both
// with Metric bench.Simulated. Without a summary line the per-function
// lines are summed. Each file is one run: one sample per result.
type Cachegrind struct{}

// Name returns "cachegrind".
func (Cachegrind) Name() string { return "cachegrind" }

// Sniff looks for cachegrind's header lines.
func (Cachegrind) Sniff(head []byte) int {
	if bytes.HasPrefix(head, []byte("desc: ")) || bytes.HasPrefix(head, []byte("cmd: ")) || bytes.HasPrefix(head, []byte("events: ")) {
		if bytes.Contains(head, []byte("\nevents: ")) || bytes.HasPrefix(head, []byte("events: ")) {
			return 90
		}
	}
	return 0
}

// CachegrindTotals are the event totals of one cachegrind run.
type CachegrindTotals struct {
	// Command is the "cmd:" line.
	Command string
	// Events maps each event name to its total.
	Events map[string]float64
	// Excluded maps each event to its count in the functions the
	// caller's exclude function matched (nil without one).
	Excluded map[string]float64
	// Line is the line of the summary, or of the events: line when the
	// counts were summed.
	Line int
}

// EstCycles estimates the CPU cycles of a run from its cachegrind event
// totals, as KCachegrind's default "CEst" derived event does:
//
//	cycles = Ir + 10·(I1mr + D1mr + D1mw) + 100·(ILmr + DLmr + DLmw)
//
// KCachegrind's formula, CEst = Ir + 10 Bm + 10 L1m + 20 Ge + 100 L2m +
// 100 LLm, also charges branch mispredictions and global bus events,
// which cachegrind counts only with --branch-sim; they are left out. It
// is a model of a CPU, not a measurement: it says how an instruction
// stream and its memory accesses would fare on a simple cache model.
// ok is false when the run was counted without --cache-sim=yes.
func EstCycles(ev map[string]float64) (cycles float64, ok bool) {
	for _, e := range []string{"Ir", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"} {
		if _, has := ev[e]; !has {
			return 0, false
		}
	}
	return ev["Ir"] + 10*(ev["I1mr"]+ev["D1mr"]+ev["D1mw"]) + 100*(ev["ILmr"]+ev["DLmr"]+ev["DLmw"]), true
}

// ReadCachegrind reads one cachegrind output file and returns its totals.
// name appears in errors with the line. When exclude is not nil, the
// counts of the functions it matches are also summed into Excluded.
func ReadCachegrind(ctx context.Context, r io.Reader, name string, exclude func(fn string) bool) (*CachegrindTotals, error) {
	lr := newLineReader(r)
	var (
		events   []string
		sum      []float64
		summary  []float64
		totals   = &CachegrindTotals{}
		haveData bool
		excluded []float64
		skip     bool
		// positions is how many leading numbers of a count line are
		// positions (line, or instr line).
		positions = 1
	)
	for lr.next(ctx) {
		line := strings.TrimRight(lr.text, " \r")
		n := lr.n
		switch {
		case line == "":
		case strings.HasPrefix(line, "desc:"):
		case strings.HasPrefix(line, "cmd:"):
			totals.Command = strings.TrimSpace(strings.TrimPrefix(line, "cmd:"))
		case strings.HasPrefix(line, "positions:"):
			positions = len(strings.Fields(strings.TrimPrefix(line, "positions:")))
			if positions < 1 || positions > 2 {
				return nil, syntaxf(name, n, "positions: want \"line\" or \"instr line\", got %q", strings.TrimPrefix(line, "positions:"))
			}
		case strings.HasPrefix(line, "events:"):
			if events != nil {
				return nil, syntaxf(name, n, "a second events: line")
			}
			events = strings.Fields(strings.TrimPrefix(line, "events:"))
			totals.Line = n
			if len(events) == 0 || len(events) > 64 {
				return nil, syntaxf(name, n, "events: want 1 to 64 event names such as Ir I1mr, got %d", len(events))
			}
			sum, excluded = make([]float64, len(events)), make([]float64, len(events))
		case strings.HasPrefix(line, "fl="), strings.HasPrefix(line, "fi="), strings.HasPrefix(line, "fe="), strings.HasPrefix(line, "fn="):
			if events == nil {
				return nil, syntaxf(name, n, "%s before the events: line", line[:3])
			}
			if fn, ok := strings.CutPrefix(line, "fn="); ok {
				skip = exclude != nil && exclude(fn)
			}
		case strings.HasPrefix(line, "summary:"), strings.HasPrefix(line, "totals:"):
			if events == nil {
				return nil, syntaxf(name, n, "summary: before the events: line")
			}
			v, err := counts(strings.Fields(line[strings.IndexByte(line, ':')+1:]), len(events))
			if err != "" {
				return nil, syntaxf(name, n, "summary: %s", err)
			}
			summary, totals.Line = v, n
		case line[0] >= '0' && line[0] <= '9':
			if events == nil {
				return nil, syntaxf(name, n, "count line before the events: line")
			}
			f := strings.Fields(line)
			if len(f) < positions {
				return nil, syntaxf(name, n, "count line: want %d position(s) then counts", positions)
			}
			v, err := counts(f[positions:], len(events))
			if err != "" {
				return nil, syntaxf(name, n, "count line: %s", err)
			}
			for i, x := range v {
				sum[i] += x
				if skip {
					excluded[i] += x
				}
			}
			haveData = true
		default:
			return nil, syntaxf(name, n, "want desc:, cmd:, events:, fl=, fn=, a count line or summary:, got %q", truncate(line, 40))
		}
	}
	if err := lr.err; err != nil {
		return nil, err
	}
	if events == nil {
		return nil, syntaxf(name, 0, "no events: line: not a cachegrind output file")
	}
	if summary == nil {
		if !haveData {
			return nil, syntaxf(name, 0, "no summary: line and no counts")
		}
		summary = sum
	}
	totals.Events = map[string]float64{}
	for i, e := range events {
		totals.Events[e] = summary[i]
	}
	if exclude != nil {
		totals.Excluded = map[string]float64{}
		for i, e := range events {
			totals.Excluded[e] = excluded[i]
		}
	}
	return totals, nil
}

// counts reads up to want non-negative integers; missing trailing ones
// are 0, as cachegrind leaves them out.
func counts(f []string, want int) ([]float64, string) {
	if len(f) > want {
		return nil, "more counts (" + strconv.Itoa(len(f)) + ") than events (" + strconv.Itoa(want) + ")"
	}
	v := make([]float64, want)
	for i, s := range f {
		x, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, "count " + strconv.Quote(truncate(s, 24)) + " is not a non-negative integer"
		}
		v[i] = float64(x)
	}
	return v, ""
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// Parse reads one cachegrind output file.
func (Cachegrind) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	t, err := ReadCachegrind(ctx, r, name, nil)
	if err != nil {
		return err
	}
	ir, ok := t.Events["Ir"]
	if !ok {
		return syntaxf(name, 0, "events: has no Ir (instructions): run cachegrind without --cache-sim=no --instr-at-start=no")
	}
	benchmark := t.Command
	if benchmark == "" {
		benchmark = "cachegrind"
	}
	if err := emit(&bench.Result{Benchmark: benchmark, Unit: "instructions", Metric: bench.Simulated, Better: bench.LowerIsBetter, Samples: []float64{ir}, Source: source(name, t.Line)}); err != nil {
		return err
	}
	if c, ok := EstCycles(t.Events); ok {
		return emit(&bench.Result{Benchmark: benchmark, Unit: "est-cycles", Metric: bench.Simulated, Better: bench.LowerIsBetter, Samples: []float64{c}, Source: source(name, t.Line)})
	}
	return nil
}
