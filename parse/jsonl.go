package parse

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/perfbot/perfbot/bench"
)

// jsonResult is the normalized JSON form of a result that `perfbot parse`
// prints, one object per line.
type jsonResult struct {
	Benchmark string          `json:"benchmark"`
	Group     string          `json:"group,omitempty"`
	Params    bench.Params    `json:"params"`
	Metric    string          `json:"metric,omitempty"`
	Unit      string          `json:"unit"`
	Better    bench.Direction `json:"better"`
	Samples   []float64       `json:"samples,omitempty"`
	Summary   *jsonSummary    `json:"summary,omitempty"`
	Source    string          `json:"source,omitempty"`
}

type jsonSummary struct {
	Mean       float64 `json:"mean"`
	Error      float64 `json:"error"`
	Confidence float64 `json:"confidence"`
	N          int     `json:"n"`
}

// JSONLine renders r as the one-line JSON object `perfbot parse` prints:
// benchmark, group (omitted when empty), params (an object in their order),
// metric (omitted when empty), unit, better ("higher" or "lower"), samples
// or summary {mean, error, confidence, n}, and source ("file:line").
func JSONLine(r *bench.Result) ([]byte, error) {
	j := jsonResult{
		Benchmark: r.Benchmark,
		Group:     r.Group,
		Params:    r.Params,
		Metric:    r.Metric,
		Unit:      r.Unit,
		Better:    r.Better,
		Samples:   r.Samples,
		Source:    r.Source,
	}
	if j.Params == nil {
		j.Params = bench.Params{}
	}
	if s := r.Summary; s != nil {
		j.Summary = &jsonSummary{Mean: s.Mean, Error: s.Error, Confidence: s.Confidence, N: s.N}
		if math.IsNaN(s.Error) || math.IsInf(s.Error, 0) {
			j.Summary.Error = 0 // none given, as JSON has no NaN
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(j); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
