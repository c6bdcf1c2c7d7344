// Package falsealarm records reviewers' marks of verdicts as false alarms
// and turns them into higher thresholds: a benchmark marked on a host
// needs a larger change there before it is called better or worse again.
package falsealarm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/stats"
	"github.com/perfbot/perfbot/store"
)

// Margin is how far above the largest marked change a marked benchmark's
// threshold is raised: a later change must be a quarter larger than the
// one marked false before it is called better or worse on that host.
const Margin = 1.25

// ThresholdPct is the threshold marks set: Margin times the largest
// absolute change among them; 0 without marks.
func ThresholdPct(marks []store.FalseAlarm) float64 {
	t := 0.0
	for _, m := range marks {
		t = math.Max(t, Margin*math.Abs(m.DeltaPct))
	}
	return t
}

// Raise folds marks into what history says about a benchmark's noise (n,
// when known): the threshold becomes the larger of the learned one and
// the marks' (ThresholdPct). Without marks n and known are returned as
// they are; with marks the result is known.
func Raise(n stats.Noise, known bool, marks []store.FalseAlarm) (stats.Noise, bool) {
	t := ThresholdPct(marks)
	if t == 0 {
		return n, known
	}
	if !known {
		n = stats.Noise{}
	}
	n.ThresholdPct = math.Max(n.ThresholdPct, t)
	return n, true
}

// gomaxprocs is the "-8" Go appends to a benchmark's name.
var gomaxprocs = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-\d+$`) })

// plain is a benchmark name as compared with what reviewers write:
// without Go's "Benchmark" prefix and GOMAXPROCS suffix.
func plain(name string) string {
	return gomaxprocs().ReplaceAllString(strings.TrimPrefix(name, "Benchmark"), "")
}

// Matches reports whether bench, as a reviewer writes it from the answer,
// names row: the row's benchmark with or without Go's "Benchmark" prefix
// and "-N" suffix, or the last parts of a dotted name
// ("MemFetchTasksBenchmark.run"), optionally followed by "/NAME=VALUE"
// parts that must equal the row's parameters ("Scan/threads=10").
func Matches(row *compare.Row, bench string) bool {
	name, params, _ := strings.Cut(bench, "/")
	if name == "" {
		return false
	}
	want, have := plain(name), plain(row.Benchmark)
	if have != want && !strings.HasSuffix(have, "."+want) {
		return false
	}
	if params == "" {
		return true
	}
	for _, p := range strings.Split(params, "/") {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return false
		}
		if got, ok := row.Params.Get(k); !ok || got != v {
			return false
		}
	}
	return true
}

// RequestError is a mark that cannot be made as asked: a benchmark that
// names no flagged verdict, a run without a host. It is answered to the
// reviewer, not retried.
type RequestError struct{ Err error }

func (e *RequestError) Error() string { return e.Err.Error() }
func (e *RequestError) Unwrap() error { return e.Err }

// Request is one mark as asked for: the benchmarks of a run, who asks,
// where and why.
type Request struct {
	Run     *store.Run
	Benches []string
	By      string
	Venue   string
	Reason  string
	At      time.Time
}

// Build turns a request into marks over the run's comparison cmp: one per
// candidate of a row that a benchmark names and that was called better or
// worse. A benchmark that names no such row is an error naming the
// benchmarks that were.
func Build(req Request, cmp *compare.Comparison) ([]store.FalseAlarm, error) {
	if len(req.Benches) == 0 {
		return nil, &RequestError{errors.New("no benchmark named; name the benchmarks as the answer shows them")}
	}
	host, err := HostOf(req.Run)
	if err != nil {
		return nil, &RequestError{err}
	}
	var marks []store.FalseAlarm
	for _, b := range req.Benches {
		found := false
		for i := range cmp.Rows {
			row := &cmp.Rows[i]
			if !Matches(row, b) {
				continue
			}
			for _, c := range row.Candidates {
				if c.Verdict != compare.Better && c.Verdict != compare.Worse {
					continue
				}
				k, err := store.NoiseKeyOf(row)
				if err != nil {
					return nil, err
				}
				found = true
				marks = append(marks, store.FalseAlarm{RunID: req.Run.ID, Host: host, Key: k, Variant: c.Variant,
					Verdict: string(c.Verdict), DeltaPct: c.DeltaPct, By: req.By, Venue: req.Venue, Reason: req.Reason, At: req.At})
			}
		}
		if !found {
			return nil, &RequestError{fmt.Errorf("%q names no benchmark called better or worse in run %d (flagged: %s)",
				b, req.Run.ID, flagged(cmp))}
		}
	}
	return marks, nil
}

// flagged lists the benchmarks of cmp called better or worse.
func flagged(cmp *compare.Comparison) string {
	var names []string
	for _, row := range cmp.Rows {
		for _, c := range row.Candidates {
			if c.Verdict == compare.Better || c.Verdict == compare.Worse {
				n := plain(row.Benchmark)
				for _, p := range row.Params {
					n += "/" + p.Name + "=" + p.Value
				}
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// HostOf is the name of the host that measured run, from its recorded
// host description.
func HostOf(run *store.Run) (string, error) {
	var h provenance.Host
	if len(run.Host) > 0 {
		if err := json.Unmarshal(run.Host, &h); err != nil {
			return "", fmt.Errorf("host of run %d: %w", run.ID, err)
		}
	}
	if h.Name == "" {
		return "", fmt.Errorf("run %d does not name the host that measured it", run.ID)
	}
	return h.Name, nil
}

// Mark records the request's marks on its run in st and returns them.
func Mark(ctx context.Context, st *store.Store, req Request) ([]store.FalseAlarm, error) {
	if strings.TrimSpace(req.By) == "" {
		return nil, errors.New("a false alarm needs who marks it")
	}
	cmp, err := st.Comparison(ctx, req.Run.ID)
	if err != nil {
		return nil, fmt.Errorf("comparison of run %d: %w", req.Run.ID, err)
	}
	if req.At.IsZero() {
		req.At = time.Now()
	}
	marks, err := Build(req, cmp)
	if err != nil {
		return nil, err
	}
	if err := st.AddFalseAlarms(ctx, marks); err != nil {
		return nil, err
	}
	return marks, nil
}

// Summary is the first line of an acknowledgement: "marked 2 verdicts
// of run 7 false alarms:".
func Summary(marks []store.FalseAlarm, runID int64) string {
	if len(marks) == 1 {
		return fmt.Sprintf("marked 1 verdict of run %d a false alarm:", runID)
	}
	return fmt.Sprintf("marked %d verdicts of run %d false alarms:", len(marks), runID)
}

// Describe says in one line per mark what was marked and the threshold
// it sets: "Checksum-2 ns/op (worse, +49.0%) on host ci-1: changes below
// 61.3% are no longer called better or worse there".
func Describe(marks []store.FalseAlarm) []string {
	var out []string
	for _, m := range marks {
		name := m.Key.Benchmark
		if m.Key.Params != "" && m.Key.Params != "{}" && m.Key.Params != "null" {
			name += " " + m.Key.Params
		}
		out = append(out, fmt.Sprintf("%s %s (%s, %+.1f%%) on host %s: changes below %.1f%% are no longer called better or worse there",
			name, m.Key.Unit, m.Verdict, m.DeltaPct, m.Host, ThresholdPct([]store.FalseAlarm{m})))
	}
	return out
}

// MarkLatest marks, for who (the venue's user), the verdicts of benches in
// the latest finished run answered to where at venue ("gitlab",
// "acme/store!12") as false alarms, and returns the reply that
// acknowledges them or says why nothing was marked (no run, a benchmark
// that names no flagged verdict). An error is the store's.
func MarkLatest(ctx context.Context, st *store.Store, venue, where, who string, benches []string, reason string) (reply string, marks []store.FalseAlarm, err error) {
	run, err := st.LatestRunOf(ctx, venue, where)
	if errors.Is(err, store.ErrNotFound) {
		return "there is no finished benchmark run here to mark.", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	marks, err = Mark(ctx, st, Request{Run: run, Benches: benches, By: who, Venue: venue, Reason: reason})
	if reqErr, ok := errors.AsType[*RequestError](err); ok {
		return "nothing marked: " + reqErr.Error(), nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	var b strings.Builder
	fmt.Fprintln(&b, Summary(marks, run.ID))
	for _, l := range Describe(marks) {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	return b.String(), marks, nil
}

// RunOf is the run whose verdicts a mark names: run runID when it is not
// 0, else the latest finished run answered to where at venue
// (store.ErrNotFound when there is none).
func RunOf(ctx context.Context, st *store.Store, runID int64, venue, where string) (*store.Run, error) {
	if runID != 0 {
		return st.GetRun(ctx, runID)
	}
	return st.LatestRunOf(ctx, venue, where)
}

// WriteAck writes the acknowledgement of marks on run runID: Summary, then
// Describe's lines indented.
func WriteAck(w io.Writer, marks []store.FalseAlarm, runID int64) error {
	if _, err := fmt.Fprintln(w, Summary(marks, runID)); err != nil {
		return err
	}
	for _, l := range Describe(marks) {
		if _, err := fmt.Fprintf(w, "  %s\n", l); err != nil {
			return err
		}
	}
	return nil
}
