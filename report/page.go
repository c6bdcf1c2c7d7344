package report

import "github.com/perfbot/perfbot/compare"

// Build lays cmp out as the Document every template receives, for
// renderers outside this package (the web pages).
func Build(cmp *compare.Comparison, opts Options) *Document { return build(cmp, opts) }
