package compare

import "github.com/perfbot/perfbot/stats"

// memo keeps, for one comparison, the parts of the statistics that depend
// only on sample sizes and levels, so that a suite of thousands of rows of
// the same size computes each once.
type memo struct {
	rankSums map[rankSumKey]stats.RankSumMDE
}

type rankSumKey struct {
	n1, n2 int
	alpha  float64
}

func newMemo() *memo {
	return &memo{rankSums: map[rankSumKey]stats.RankSumMDE{}}
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
