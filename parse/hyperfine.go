package parse

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"

	"github.com/perfbot/perfbot/bench"
)

// Hyperfine reads `hyperfine --export-json`: {"results":[{"command",
// "mean", "stddev", "median", "user", "system", "min", "max", "times":[...],
// "exit_codes", "parameters"}]}, all times in seconds. The command is the
// benchmark and --parameter-scan/-list values ("parameters", or the single
// "parameter" of versions before 1.11) its parameters. "times" become the
// samples of Unit "s"; without times (not recorded) the mean, with stddev
// as spread unknown, becomes a Summary (Error 0, N 1). Results are read
// one at a time.
type Hyperfine struct{}

// Name returns "hyperfine".
func (Hyperfine) Name() string { return "hyperfine" }

// Sniff looks for hyperfine's keys.
func (Hyperfine) Sniff(head []byte) int {
	if bytes.Contains(head, []byte(`"results"`)) && bytes.Contains(head, []byte(`"command"`)) && bytes.Contains(head, []byte(`"mean"`)) {
		return 95
	}
	return 0
}

type hyperfineResult struct {
	Command    *string         `json:"command"`
	Mean       *float64        `json:"mean"`
	Times      []float64       `json:"times"`
	Parameters json.RawMessage `json:"parameters"`
	Parameter  *string         `json:"parameter"`
}

// Parse reads hyperfine JSON.
func (Hyperfine) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	sc := newObjectScanner(r, name, "{[{")
	if sc.firstByte() != '{' {
		sc.patterns = []string{"{"} // a fragment of the results array
	}
	for {
		rec, line, ok := sc.next(ctx)
		if !ok {
			break
		}
		var hr hyperfineResult
		if err := json.Unmarshal(rec, &hr); err != nil {
			return syntaxf(name, line, "hyperfine result: %v", err)
		}
		if hr.Command == nil {
			warnf(ctx, name, line, "object without \"command\" is not a hyperfine result; skipped")
			continue
		}
		res := &bench.Result{
			Benchmark: *hr.Command,
			Unit:      "s",
			Better:    bench.LowerIsBetter,
			Source:    source(name, line),
		}
		if len(hr.Parameters) > 0 && string(hr.Parameters) != "null" {
			if err := res.Params.UnmarshalJSON(hr.Parameters); err != nil {
				return syntaxf(name, line, "hyperfine result parameters: %v", err)
			}
		} else if hr.Parameter != nil {
			res.Params = bench.Params{{Name: "parameter", Value: *hr.Parameter}}
		}
		for _, t := range hr.Times {
			if !math.IsNaN(t) {
				res.Samples = append(res.Samples, t)
			}
		}
		if len(res.Samples) == 0 {
			if hr.Mean == nil {
				warnf(ctx, name, line, "hyperfine result %q has neither times nor mean; skipped", *hr.Command)
				continue
			}
			res.Summary = summary(*hr.Mean, 0, 0, 1)
		}
		if err := emit(res); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if sc.trunc {
		return syntaxf(name, sc.start, "hyperfine result is truncated: the input ends before its closing brace")
	}
	return nil
}
