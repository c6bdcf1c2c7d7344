package report

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/perfbot/perfbot/compare"
)

// Build lays cmp out as the Document every template receives, for
// renderers outside this package (the web pages). Its sections are the
// one-unit tables, with intervals, p and n, in place of the ShapeUnits
// summaries the venue renderings open with; Details is then empty.
func Build(cmp *compare.Comparison, opts Options) *Document {
	doc := build(cmp, opts)
	if len(doc.Details) == 0 {
		return doc
	}
	var out []*Section
	for _, s := range doc.Sections {
		if s.Shape != ShapeUnits {
			out = append(out, s)
			continue
		}
		for _, d := range doc.Details {
			if d.Group == s.Group {
				out = append(out, d)
			}
		}
	}
	doc.Sections, doc.Details = out, nil
	return doc
}

// Storable is cmp as the service stores it: read back from its JSON
// contract, which writes the numbers JSON cannot hold (an infinite change
// from a zero baseline) as null, with the raw samples and summaries put
// back.
func Storable(cmp *compare.Comparison) (*compare.Comparison, error) {
	var b bytes.Buffer
	if err := JSON(&b, cmp); err != nil {
		return nil, err
	}
	var out compare.Comparison
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		return nil, err
	}
	if len(out.Rows) != len(cmp.Rows) {
		return nil, fmt.Errorf("comparison changed shape in JSON: %d rows, want %d", len(out.Rows), len(cmp.Rows))
	}
	for i := range out.Rows {
		src, dst := &cmp.Rows[i], &out.Rows[i]
		if src.Base != nil && dst.Base != nil {
			dst.Base.Samples, dst.Base.Summary = src.Base.Samples, src.Base.Summary
		}
		for j := range dst.Candidates {
			if j < len(src.Candidates) {
				dst.Candidates[j].Samples, dst.Candidates[j].Summary = src.Candidates[j].Samples, src.Candidates[j].Summary
			}
		}
	}
	return &out, nil
}
