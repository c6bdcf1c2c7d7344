package job

import (
	"context"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/falsealarm"
	"github.com/perfbot/perfbot/stats"
	"github.com/perfbot/perfbot/store"
)

// noiseKeep is how many of a benchmark's latest no-change deltas the noise
// threshold is learned from, so that an old machine setup fades out.
const noiseKeep = 50

// noiseRule is how thresholds are learned from history: rustc-perf's
// interquartile-range fence, never below 0.5%, as cmd/perfbot-eval measures it.
var noiseRule = stats.NoiseRule{FloorPct: 0.5}

// Threshold is the noise threshold the history learns for a benchmark
// from its past deltas on the calibrated host.
func (c *Calibration) Threshold(k store.NoiseKey) (stats.Noise, error) {
	return noiseRule.Learn(c.Past[k])
}

// noiseHistory is what past no-change runs on this host say about each
// benchmark's noise.
type noiseHistory struct {
	host   string
	deltas map[store.NoiseKey][]float64
	// marks are reviewers' false-alarm marks of verdicts measured on
	// this host: each raises its row's threshold (falsealarm.Raise).
	marks  map[store.NoiseKey][]store.FalseAlarm
	learnt map[store.NoiseKey]*stats.Noise
}

// loadNoise loads the noise history of this host from a store; nil when
// no store is named.
func loadNoise(ctx context.Context, dsn, driver string) (*noiseHistory, error) {
	if dsn == "" {
		return nil, nil
	}
	// The runner records the host under the same name.
	host, err := os.Hostname()
	if err != nil {
		return nil, fmt.Errorf("noise history: %w", err)
	}
	st, err := store.Open(ctx, StoreDriver(driver, dsn), dsn)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	deltas, err := st.Noise(ctx, host, noiseKeep)
	if err != nil {
		return nil, err
	}
	marks, err := st.FalseAlarmsOnHost(ctx, host)
	if err != nil {
		return nil, err
	}
	return &noiseHistory{host: host, deltas: deltas, marks: marks, learnt: map[store.NoiseKey]*stats.Noise{}}, nil
}

// lookup is compare.VerdictOptions.History.
func (h *noiseHistory) lookup(row *compare.Row) (stats.Noise, bool) {
	k, err := store.NoiseKeyOf(row)
	if err != nil {
		return stats.Noise{}, false
	}
	n, ok := h.learnt[k]
	if !ok {
		learnt, err := noiseRule.Learn(h.deltas[k])
		if raised, known := falsealarm.Raise(learnt, err == nil, h.marks[k]); known {
			n = &raised
		}
		h.learnt[k] = n
	}
	if n == nil {
		return stats.Noise{}, false
	}
	return *n, true
}

// annotate marks the candidates whose verdict used a learned threshold and
// says in a warning how many did.
func (h *noiseHistory) annotate(cmp *compare.Comparison) {
	if h == nil {
		return
	}
	used, total := 0, 0
	for i := range cmp.Rows {
		row := &cmp.Rows[i]
		for j := range row.Candidates {
			c := &row.Candidates[j]
			if c.Presence != compare.Both || c.Test == "" || c.Test == compare.TestExact {
				continue
			}
			total++
			n, ok := h.lookup(row)
			if !ok {
				continue
			}
			used++
			th := n.ThresholdPct
			c.NoiseThresholdPct, c.NoiseHistory = &th, n.N
			msg := fmt.Sprintf("noise threshold %.1f%% from %d past runs", th, n.N)
			if k, err := store.NoiseKeyOf(row); err == nil && len(h.marks[k]) > 0 {
				ms := h.marks[k]
				last := ms[len(ms)-1]
				msg = fmt.Sprintf("threshold %.1f%%: %d verdict(s) of this benchmark on this host marked a false alarm, last by %s", th, len(ms), last.By)
				if n.N > 0 {
					msg += fmt.Sprintf("; %d past no-change runs", n.N)
				}
			}
			if n.Unstable {
				msg += " (unstable benchmark)"
			}
			c.Warnings = append(c.Warnings, msg)
		}
	}
	if total > 0 {
		cmp.Warnings = append(cmp.Warnings, fmt.Sprintf("noise thresholds learned from past no-change runs on %s (perfbot calibrate) applied to %d of %d comparisons", h.host, used, total))
	}
}

// NoiseThresholds returns the noise thresholds calibration learned for
// this host's benchmarks in st, learned as the verdicts learn them; nil
// when st holds none.
func NoiseThresholds(ctx context.Context, st *store.Store) func(store.NoiseKey) (float64, bool) {
	host, err := os.Hostname()
	if err != nil {
		return nil
	}
	deltas, err := st.Noise(ctx, host, noiseKeep)
	if err != nil || len(deltas) == 0 {
		return nil
	}
	return func(k store.NoiseKey) (float64, bool) {
		n, err := noiseRule.Learn(deltas[k])
		if err != nil {
			return 0, false
		}
		return n.ThresholdPct, true
	}
}

// WriteTable prints each benchmark's delta between the two runs of the
// baseline, the runs it has on the host and the threshold they give.
func (c *Calibration) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "benchmark\tunit\tdelta\truns\tthreshold\t\n")
	for _, d := range c.Deltas {
		th := "-"
		if n, err := c.Threshold(d.Key); err == nil {
			th = fmt.Sprintf("%.2f%%", n.ThresholdPct)
			if n.Unstable {
				th += " unstable"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%+.2f%%\t%d\t%s\t\n", falsealarm.RowName(d.Key), d.Key.Unit, d.DeltaPct, len(c.Past[d.Key]), th)
	}
	return tw.Flush()
}
