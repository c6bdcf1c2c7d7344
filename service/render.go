package service

import (
	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/report"
)

// RenderSummary is the renderer used when none is given: report.Brief, a
// one-paragraph answer with the headline, the verdict counts per
// candidate and the failures. The service command wires the full report
// renderings instead.
func RenderSummary(cmp *compare.Comparison) answer.Answer {
	return report.Brief(cmp)
}

// StateOf is the venue state of a comparison, as report.State decides it
// for every answer.
func StateOf(cmp *compare.Comparison) answer.State {
	return report.State(cmp)
}
