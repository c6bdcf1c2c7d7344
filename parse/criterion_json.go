package parse

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"path"
	"strings"

	"github.com/perfbot/perfbot/bench"
)

// CriterionJSON reads Criterion.rs's JSON files:
//
//   - cargo-criterion --message-format=json (NDJSON): each
//     "benchmark-complete" message gives samples measured_values[i] /
//     iteration_count[i] (time per iteration, in "unit"), or, without them,
//     a Summary of the mean estimate with its 95 % interval;
//     "group-complete" messages are ignored;
//   - estimates.json (both the capitalized keys of Criterion < 0.3.3 and
//     the snake_case keys since): a Summary of "mean" (ns), with
//     "median" as Metric "median". The benchmark is named from the file's
//     path (".../criterion/<id>/new/estimates.json") or, failing that, its
//     base name;
//   - change/estimates.json (relative changes, not measurements) and
//     benchmark.json (metadata only) yield nothing, with a warning.
type CriterionJSON struct{}

// Name returns "criterion-json".
func (CriterionJSON) Name() string { return "criterion-json" }

// Sniff looks for cargo-criterion messages or estimate objects.
func (CriterionJSON) Sniff(head []byte) int {
	switch {
	case bytes.Contains(head, []byte(`"reason":"benchmark-complete"`)), bytes.Contains(head, []byte(`"reason":"group-complete"`)):
		return 95
	case bytes.Contains(head, []byte(`"point_estimate"`)) && bytes.Contains(head, []byte(`"confidence_interval"`)):
		return 90
	case bytes.Contains(head, []byte(`"group_id"`)) && bytes.Contains(head, []byte(`"full_id"`)):
		return 80
	}
	return 0
}

type crEstimate struct {
	Estimate   *float64 `json:"estimate"`
	LowerBound float64  `json:"lower_bound"`
	UpperBound float64  `json:"upper_bound"`
	Unit       string   `json:"unit"`
}

type crMessage struct {
	Reason         string      `json:"reason"`
	ID             string      `json:"id"`
	IterationCount []float64   `json:"iteration_count"`
	MeasuredValues []float64   `json:"measured_values"`
	Unit           string      `json:"unit"`
	Mean           *crEstimate `json:"mean"`
}

type crPointEstimate struct {
	ConfidenceInterval struct {
		ConfidenceLevel float64 `json:"confidence_level"`
		LowerBound      float64 `json:"lower_bound"`
		UpperBound      float64 `json:"upper_bound"`
	} `json:"confidence_interval"`
	PointEstimate float64 `json:"point_estimate"`
}

// Parse reads Criterion JSON.
func (CriterionJSON) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	sc := newObjectScanner(r, name)
	for {
		rec, line, ok := sc.next(ctx)
		if !ok {
			break
		}
		src := source(name, line)
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(rec, &keys); err != nil {
			return syntaxf(name, line, "Criterion JSON: %v", err)
		}
		switch {
		case keys["reason"] != nil:
			var m crMessage
			if err := json.Unmarshal(rec, &m); err != nil {
				return syntaxf(name, line, "cargo-criterion message: %v", err)
			}
			if m.Reason != "benchmark-complete" {
				continue
			}
			res := &bench.Result{Benchmark: m.ID, Unit: m.Unit, Better: bench.LowerIsBetter, Source: src}
			if len(m.MeasuredValues) > 0 && len(m.MeasuredValues) == len(m.IterationCount) {
				for i, v := range m.MeasuredValues {
					if n := m.IterationCount[i]; n > 0 && !math.IsNaN(v) {
						res.Samples = append(res.Samples, v/n)
					}
				}
			}
			if len(res.Samples) == 0 {
				if m.Mean == nil || m.Mean.Estimate == nil {
					warnf(ctx, name, line, "%s: neither measured values nor a mean estimate; skipped", m.ID)
					continue
				}
				res.Unit = m.Mean.Unit
				res.Summary = summary(*m.Mean.Estimate, (m.Mean.UpperBound-m.Mean.LowerBound)/2, 0.95, 0)
			}
			if res.Unit == "" {
				res.Unit = "ns"
			}
			if err := emit(res); err != nil {
				return err
			}
		case keys["Mean"] != nil || keys["mean"] != nil:
			_, hasStd := keys["std_dev"]
			_, hasStd2 := keys["StdDev"]
			if !hasStd && !hasStd2 {
				warnf(ctx, name, line, "estimates without std_dev: a change/estimates.json of relative changes, not measurements; skipped")
				continue
			}
			id := crIDFromPath(name)
			for _, k := range [][2]string{{"Mean", ""}, {"mean", ""}, {"Median", "median"}, {"median", "median"}} {
				raw := keys[k[0]]
				if raw == nil || string(raw) == "null" {
					continue
				}
				var pe crPointEstimate
				if err := json.Unmarshal(raw, &pe); err != nil {
					return syntaxf(name, line, "estimate %s: %v", k[0], err)
				}
				ci := pe.ConfidenceInterval
				res := &bench.Result{
					Benchmark: id, Metric: k[1], Unit: "ns", Better: bench.LowerIsBetter,
					Summary: summary(pe.PointEstimate, (ci.UpperBound-ci.LowerBound)/2, ci.ConfidenceLevel, 0),
					Source:  src,
				}
				if err := emit(res); err != nil {
					return err
				}
			}
		case keys["group_id"] != nil:
			warnf(ctx, name, line, "benchmark.json holds only metadata; no results")
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if sc.trunc {
		return syntaxf(name, sc.start, "Criterion JSON is truncated: the input ends before its closing brace")
	}
	return nil
}

// crIDFromPath names a benchmark from an estimates.json path.
func crIDFromPath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	dir := path.Dir(p)
	switch path.Base(dir) {
	case "new", "base":
		id := path.Dir(dir)
		if i := strings.LastIndex(id, "criterion/"); i >= 0 {
			return id[i+len("criterion/"):]
		}
		return path.Base(id)
	}
	return strings.TrimSuffix(path.Base(p), path.Ext(p))
}
