package compare

import (
	"math"

	"github.com/perfbot/perfbot/stats"
)

// memo keeps, for one comparison, the parts of the statistics that depend
// only on sample sizes and levels, so that a suite of thousands of rows of
// the same size computes each once.
type memo struct {
	rankSums map[rankSumKey]stats.RankSumMDE
	ps       map[pKey]pValue
	// tied holds the p-values of samples with ties, by their tie key.
	tied map[tieKey]pValue
	buf  []byte
	// tester computes the p-values not found here.
	tester stats.BenchstatTester
}

// tieKey identifies a Mann-Whitney test of two sorted samples with ties:
// the sizes of each group of equal values in both samples, in order (see
// appendTies), and the level. Ranks, the statistic, the tie correction and
// so the p-value and warnings depend on nothing else.
type tieKey struct {
	groups string
	alpha  float64
}

// maxTied bounds memo.tied, whose keys grow with the samples.
const maxTied = 1 << 14

// pKey identifies a Mann-Whitney test of samples without ties: its
// p-value depends on nothing else.
type pKey struct {
	n1, n2, u int
	alpha     float64
}

type pValue struct {
	p        float64
	warnings []error
}

type rankSumKey struct {
	n1, n2 int
	alpha  float64
}

func newMemo() *memo {
	return &memo{rankSums: map[rankSumKey]stats.RankSumMDE{}, ps: map[pKey]pValue{}, tied: map[tieKey]pValue{}}
}

// rankSum is stats.NewRankSumMDE at Power, computed once per sizes and
// alpha.
func (m *memo) rankSum(n1, n2 int, alpha float64) stats.RankSumMDE {
	k := rankSumKey{n1, n2, alpha}
	r, ok := m.rankSums[k]
	if !ok {
		r = stats.NewRankSumMDE(n1, n2, alpha, Power)
		m.rankSums[k] = r
	}
	return r
}

// benchstatP is stats.BenchstatP, computed once per sample sizes and
// Mann-Whitney statistic when neither sample has ties (nor shares a value
// with the other): the test's p-value and warnings then depend on nothing
// else.
func (m *memo) benchstatP(x, y []float64, alpha float64) (float64, []error) {
	u, ok := pairsBelow(x, y)
	if !ok {
		return m.tiedP(x, y, alpha)
	}
	k := pKey{len(x), len(y), u, alpha}
	if v, ok := m.ps[k]; ok {
		return v.p, v.warnings
	}
	p, w := m.tester.P(x, y, alpha)
	m.ps[k] = pValue{p, w}
	return p, w
}

// pairsBelow counts the pairs (x_i, y_j) with x_i < y_j of two sorted
// samples of finite values, and reports false when the samples are not
// sorted, hold a tie or a value that is not finite.
func pairsBelow(x, y []float64) (int, bool) {
	for _, s := range [2][]float64{x, y} {
		for i, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) || i > 0 && !(s[i-1] < v) {
				return 0, false
			}
		}
	}
	u, j := 0, 0
	for _, v := range x {
		for j < len(y) && y[j] <= v {
			if y[j] == v {
				return 0, false
			}
			j++
		}
		u += len(y) - j
	}
	return u, true
}

// tiedP is stats.BenchstatP, computed once per tie key when both samples
// are sorted and finite.
func (m *memo) tiedP(x, y []float64, alpha float64) (float64, []error) {
	var ok bool
	m.buf, ok = appendTies(m.buf[:0], x, y)
	if !ok {
		return m.tester.P(x, y, alpha)
	}
	if v, ok := m.tied[tieKey{string(m.buf), alpha}]; ok {
		return v.p, v.warnings
	}
	p, w := m.tester.P(x, y, alpha)
	if len(m.tied) < maxTied {
		m.tied[tieKey{string(m.buf), alpha}] = pValue{p, w}
	}
	return p, w
}

// appendTies appends to b, for each run of equal values of the merged
// sorted samples x and y in order, how many come from x and how many from
// y, as two bytes. It reports false when a sample is not sorted, holds a
// value that is not finite, or a run of more than 255 values of one side.
func appendTies(b []byte, x, y []float64) ([]byte, bool) {
	for _, s := range [2][]float64{x, y} {
		for i, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) || i > 0 && s[i-1] > v {
				return b, false
			}
		}
	}
	for cx, cy := range stats.TieRuns(x, y) {
		if cx > 255 || cy > 255 {
			return b, false
		}
		b = append(b, byte(cx), byte(cy))
	}
	return b, true
}
