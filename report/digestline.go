package report

import "github.com/perfbot/perfbot/compare"

// HeadlineOf is the comparison's headline as its answer states it: the
// overall mark and "Append -98% time, +8 B/op, +1 alloc". A digest quotes
// it for each request it lists.
func HeadlineOf(c *compare.Comparison) Headline { return headlineOf(c) }
