// Package digest summarizes a period of the history for a mailing list
// and a page of perfbot web, most important first: a headline with the
// counts; each request whose run moved benchmarks, with its title, links,
// its answer's headline, the size of the change and what became of it;
// the change points of the tracked branches, the benchmarks that stopped
// producing results and the regressions still open; and a release
// candidate against the last release when both are configured.
package digest

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/store"
)

// Options say what the digest tracks.
type Options struct {
	// Branches are the tracked branches (such as "main"); a run counts as
	// the branch's when its candidate ref is the branch. Runs of perfbot
	// track (venue "track") always count as a tracked branch's.
	Branches []string
	// RC and Release, when both set, add the newest run of RC against
	// Release.
	RC, Release string
	// Title names the digest ("weekly"); it is also the period's name in
	// the digest page's address.
	Title string
	// MailArchive, such as "https://lists.example.org/r/%s", turns the
	// Message-ID of a mail answer into a link to the list archive.
	MailArchive string
	// URL is the service's address (config service.url): the digest links
	// each run's page and its own page under it.
	URL string
	// TemplateDir is a folder whose digest.tmpl overrides the embedded
	// one (config key templates); check it with CheckTemplate first.
	TemplateDir string
	// Top is how many items of each list the digest shows in full; the
	// rest are counted (default 10).
	Top int
	// OpenAfter is how many tracked runs after a regression's change
	// point leave it "still open" when no change point undid it
	// (default 5).
	OpenAfter int
}

// Kinds of a request's outcome, per benchmark moved.
const (
	KindRegression  = "regression"
	KindImprovement = "improvement"
	KindMixed       = "mixed"
)

// Digest is one period's summary.
type Digest struct {
	// templateDir overrides the embedded digest.tmpl (Options.TemplateDir).
	templateDir string

	Title    string
	From, To time.Time
	// Link is the digest's own page, when the service's URL is known.
	Link string
	// Counts is the headline.
	Counts Counts
	// Requests are the runs of patches and pull requests that moved a
	// benchmark, regressions first, then mixed, then improvements, each
	// largest change first; at most Top of them, MoreRequests counts the
	// rest.
	Requests     []Request
	MoreRequests int
	// Unmoved are the other requests measured, which moved nothing.
	Unmoved     []Request
	MoreUnmoved int
	// Shifts are the change points found on tracked branches in the
	// period, largest first; MoreShifts counts those not shown.
	Shifts     []Shift
	MoreShifts int
	// Stopped are the benchmarks a tracked branch measured in the period
	// before and not in this one.
	Stopped     []Stopped
	MoreStopped int
	// Open are regressions on tracked branches still open after
	// Options.OpenAfter runs.
	Open     []Shift
	MoreOpen int
	// Release is the release candidate's run, when configured and found.
	Release *Request
	// ReleaseNote says why Release is missing, when it is.
	ReleaseNote string
	// Trends are the histories of the shifted benchmarks, for charts.
	Trends []Trend
}

// Counts is the digest's headline.
type Counts struct {
	Regressions, Improvements, Mixed int
	// Patches counts the requests measured (moved or not).
	Patches int
	// BenchmarkChanges counts the benchmarks the requests moved (one
	// benchmark with time and B/op moving is one change).
	BenchmarkChanges int
	// ChangePoints counts the change points found on tracked branches.
	ChangePoints int
	// Stopped and Open count the benchmarks that stopped and the open
	// regressions.
	Stopped, Open int
}

// Request is one run of a patch or pull request.
type Request struct {
	RunID int64
	Key   string
	// Title names the request: the title its intake stored (pull request
	// title, mail subject, JIRA summary, Gerrit subject), else the
	// patch's subject line, the mail thread's subject, the pull request's
	// target; never empty.
	Title string
	// Kind is KindRegression, KindImprovement, KindMixed, or "" when it
	// moved nothing.
	Kind string
	// Headline is the answer's headline ("Append -98% time, +8 B/op,
	// +1 alloc").
	Headline string
	// Thread is where the answer was posted; RunPage the run's page.
	Thread, RunPage string
	// Better, Worse and Mixed count the benchmarks it moved each way.
	Better, Worse, Mixed int
	// MeanPct and MaxPct are the mean and the largest (by size) change
	// over the benchmarks it moved, each benchmark by its main unit.
	MeanPct, MaxPct float64
	// State is what became of it: "confirmed on main after merge",
	// "retracted", "not landed yet", ...
	State    string
	Finished time.Time
	// size orders requests: the largest change.
	size float64
	// moved are the benchmarks it moved (moveKey), in order.
	moved []string
}

// Moved is how many benchmarks the request moved.
func (r Request) Moved() int { return r.Better + r.Worse + r.Mixed }

// Shift is one change point of a tracked branch.
type Shift struct {
	store.ChangePoint
	// Label names the benchmark row in one line.
	Label string
	// Regression says the change is for the worse (by the unit's
	// direction).
	Regression bool
	// RunPage is the page of the run that measured the commit after.
	RunPage string
	// Spark is the series' recent history as a text sparkline.
	Spark string
	// RunsSince counts the track's runs after the change point.
	RunsSince int
}

// Stopped is a benchmark that a tracked branch stopped measuring.
type Stopped struct {
	Branch, Label string
}

// Build reads the digest of [from, to) from the history.
func Build(ctx context.Context, st *store.Store, from, to time.Time, opts Options) (*Digest, error) {
	if opts.Top <= 0 {
		opts.Top = 10
	}
	if opts.OpenAfter <= 0 {
		opts.OpenAfter = 5
	}
	d := &Digest{Title: opts.Title, From: from, To: to, templateDir: opts.TemplateDir}
	if d.Title == "" {
		d.Title = "digest"
	}
	base := strings.TrimRight(opts.URL, "/")
	if base != "" {
		d.Link = base + PagePath(d.Title, to)
	}
	runPage := func(id int64) string {
		if base == "" || id == 0 {
			return ""
		}
		return fmt.Sprintf("%s/runs/%d", base, id)
	}
	// A tracked branch's runs: perfbot track's, and the others that
	// measured a tracked branch as it is (a nightly run, not a patch).
	tracked := func(venue, ref, patch string) bool {
		return venue == store.VenueTrack || patch == "" && slices.Contains(opts.Branches, strings.TrimPrefix(ref, "refs/heads/"))
	}
	releaseKey := ReleaseKey(opts.RC, opts.Release)

	changes, err := st.Changes(ctx, from, to)
	if err != nil {
		return nil, err
	}
	runs, err := st.RunSummariesFinishedBetween(ctx, from, to)
	if err != nil {
		return nil, err
	}
	moves := movesByRun(changes)
	all := make([]Request, 0, len(runs))
	for _, r := range runs {
		if tracked(r.Venue, r.CandidateRef, r.Patch) || r.JobKey == releaseKey {
			continue
		}
		req := Request{RunID: r.ID, Key: r.JobKey, Finished: r.Finished, RunPage: runPage(r.ID)}
		moves[r.ID].tally(&req)
		all = append(all, req)
	}
	d.Counts.Patches = len(all)
	slices.SortStableFunc(all, func(a, b Request) int {
		if c := cmp.Compare(kindRank(a.Kind), kindRank(b.Kind)); c != 0 {
			return c
		}
		return cmp.Compare(b.size, a.size)
	})
	var moved, unmoved []Request
	for _, r := range all {
		switch r.Kind {
		case KindRegression:
			d.Counts.Regressions++
		case KindImprovement:
			d.Counts.Improvements++
		case KindMixed:
			d.Counts.Mixed++
		}
		d.Counts.BenchmarkChanges += r.Moved()
		if r.Kind == "" {
			unmoved = append(unmoved, r)
		} else {
			moved = append(moved, r)
		}
	}
	d.Requests, d.MoreRequests = cut(moved, opts.Top)
	d.Unmoved, d.MoreUnmoved = cut(unmoved, opts.Top)
	// Only the requests shown are read in full.
	for _, list := range [][]Request{d.Requests, d.Unmoved} {
		for i := range list {
			if err := describe(ctx, st, &list[i], opts); err != nil {
				return nil, err
			}
		}
	}

	if err := d.tracked(ctx, st, from, to, opts, runPage, tracked); err != nil {
		return nil, err
	}

	if opts.RC != "" && opts.Release != "" {
		// The release candidate's newest run, whenever it finished: it is
		// queued when a digest fires and reported from then on.
		r, err := st.LastDoneRun(ctx, releaseKey)
		switch {
		case errors.Is(err, store.ErrNotFound):
			d.ReleaseNote = fmt.Sprintf("%s has not been measured against %s yet", opts.RC, opts.Release)
		case err != nil:
			return nil, err
		default:
			req := Request{RunID: r.ID, Key: r.JobKey, Finished: r.Finished, RunPage: runPage(r.ID)}
			if vs, err := st.RunVerdicts(ctx, r.ID, "better", "worse"); err == nil {
				var cs []store.Change
				for _, v := range vs {
					p, err := parseParams(v.Key.Params)
					if err != nil {
						return nil, fmt.Errorf("release run %d: %w", r.ID, err)
					}
					cs = append(cs, store.Change{RunID: r.ID, Benchmark: v.Key.Benchmark, Group: v.Key.Group, Params: p,
						Unit: v.Key.Unit, Metric: v.Key.Metric, DeltaPct: v.DeltaPct, Verdict: v.Verdict})
				}
				movesByRun(cs)[r.ID].tally(&req)
			}
			if err := describe(ctx, st, &req, opts); err != nil {
				return nil, err
			}
			req.Title, req.State = fmt.Sprintf("%s against %s", opts.RC, opts.Release), ""
			d.Release = &req
		}
	}
	return d, nil
}

func kindRank(k string) int {
	switch k {
	case KindRegression:
		return 0
	case KindMixed:
		return 1
	case KindImprovement:
		return 2
	}
	return 3
}

func cut[T any](s []T, n int) ([]T, int) {
	if len(s) <= n {
		return s, 0
	}
	return s[:n:n], len(s) - n
}

// benchMove is one benchmark (name, group, parameters) a run moved, over
// all its units.
type benchMove struct {
	better, worse bool
	// main is the delta of its main unit: a time when one moved, else
	// the largest change.
	main     float64
	mainTime bool
}

type runMoves struct {
	order []string
	by    map[string]*benchMove
}

// movesByRun groups significant verdicts per run and benchmark.
func movesByRun(changes []store.Change) map[int64]*runMoves {
	out := map[int64]*runMoves{}
	for _, c := range changes {
		rm := out[c.RunID]
		if rm == nil {
			rm = &runMoves{by: map[string]*benchMove{}}
			out[c.RunID] = rm
		}
		k := moveKey(c.Group, c.Benchmark, c.Params)
		m := rm.by[k]
		if m == nil {
			m = &benchMove{}
			rm.by[k] = m
			rm.order = append(rm.order, k)
		}
		if c.Verdict == "better" {
			m.better = true
		} else {
			m.worse = true
		}
		isTime := isTimeUnit(c.Unit, c.Metric)
		switch {
		case isTime && !m.mainTime:
			m.main, m.mainTime = c.DeltaPct, true
		case isTime == m.mainTime && math.Abs(c.DeltaPct) > math.Abs(m.main):
			m.main = c.DeltaPct
		}
	}
	return out
}

// moveKey names a benchmark (group, name and parameters) over its units.
func moveKey(group, name string, params bench.Params) string {
	return group + "\x00" + name + "\x00" + params.String()
}

func isTimeUnit(unit, metric string) bool {
	switch unit {
	case "ns/op", "sec/op", "s", "ms", "us", "ns", "seconds", "µs":
		return metric == "" || metric == "time" || metric == "wall"
	}
	return false
}

// tally counts the benchmarks moved into r, with its kind and size; rm
// may be nil (nothing moved).
func (rm *runMoves) tally(r *Request) {
	if rm == nil {
		return
	}
	var sum float64
	r.moved = rm.order
	for _, k := range rm.order {
		m := rm.by[k]
		switch {
		case m.better && m.worse:
			r.Mixed++
		case m.better:
			r.Better++
		default:
			r.Worse++
		}
		sum += m.main
		if math.Abs(m.main) > math.Abs(r.MaxPct) {
			r.MaxPct = m.main
		}
	}
	if n := len(rm.order); n > 0 {
		r.MeanPct = sum / float64(n)
	}
	r.size = math.Abs(r.MaxPct)
	switch {
	case r.Mixed > 0 || r.Better > 0 && r.Worse > 0:
		r.Kind = KindMixed
	case r.Worse > 0:
		r.Kind = KindRegression
	case r.Better > 0:
		r.Kind = KindImprovement
	}
}

// describe reads what the digest says of a request it shows in full: its
// title, headline, thread and state.
func describe(ctx context.Context, st *store.Store, r *Request, opts Options) error {
	run, err := st.GetRun(ctx, r.RunID)
	if err != nil {
		return err
	}
	c, err := st.Comparison(ctx, r.RunID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	var subject string
	if c != nil {
		r.Headline = report.HeadlineOf(c).Changes
		for _, s := range c.Provenance.Sides {
			if s.PatchSubject != "" {
				subject = s.PatchSubject
			}
		}
	}
	if subject == "" {
		if subject, err = st.AnswerSubject(ctx, r.Key); err != nil {
			return err
		}
		subject = trimReply(subject)
	}
	r.Title = requestTitle(run, subject)
	posts, err := st.PostsByKey(ctx, r.Key)
	if err != nil {
		return err
	}
	if len(posts) > 0 {
		l := posts[0].Link
		if id, isMail := strings.CutPrefix(strings.TrimSuffix(l, ">"), "<"); isMail && opts.MailArchive != "" {
			l = fmt.Sprintf(opts.MailArchive, url.PathEscape(id))
		}
		r.Thread = l
	}
	if r.State, err = state(ctx, st, r.Key); err != nil {
		return err
	}
	marked, by, err := falseAlarms(ctx, st, r)
	if err != nil {
		return err
	}
	switch {
	case marked == 0:
	case marked == len(r.moved) && r.State == stateNotLanded:
		r.State = "marked a false alarm by " + by
	case marked == len(r.moved):
		r.State = "marked a false alarm by " + by + "; " + r.State
	default:
		r.State = fmt.Sprintf("%s; %d of %d benchmarks marked false alarms by %s", r.State, marked, len(r.moved), by)
	}
	return nil
}

// falseAlarms counts the benchmarks r moved that reviewers marked false
// alarms (any of their units), and names who marked them.
func falseAlarms(ctx context.Context, st *store.Store, r *Request) (int, string, error) {
	if len(r.moved) == 0 {
		return 0, "", nil
	}
	marks, err := st.FalseAlarmsOfRun(ctx, r.RunID)
	if err != nil {
		return 0, "", err
	}
	keys := map[string]bool{}
	var who []string
	for _, m := range marks {
		p, err := parseParams(m.Key.Params)
		if err != nil {
			return 0, "", fmt.Errorf("false alarm %d of run %d: params: %w", m.ID, r.RunID, err)
		}
		keys[moveKey(m.Key.Group, m.Key.Benchmark, p)] = true
		if by := oneLine(m.By); !slices.Contains(who, by) {
			who = append(who, by)
		}
	}
	n := 0
	for _, k := range r.moved {
		if keys[k] {
			n++
		}
	}
	return n, strings.Join(who, ", "), nil
}

// requestTitle names a run: the title its intake stored (a pull
// request's title, a mail's subject, a JIRA summary), else the subject
// when known, else where it came from, else what it compared; never
// empty.
func requestTitle(run *store.Run, subject string) string {
	switch {
	case strings.TrimSpace(run.Title) != "":
		return oneLine(run.Title)
	case subject != "" && run.Target != "" && !strings.Contains(subject, run.Target):
		return run.Target + ": " + subject
	case subject != "":
		return subject
	case run.Target != "":
		return run.Target
	case run.Patch != "":
		return run.Patch
	case run.CandidateRef != "" || run.BaseRef != "":
		return or(run.CandidateRef, "HEAD") + " against " + or(run.BaseRef, "HEAD")
	}
	return run.JobKey
}

// trimReply removes the "Re: " of a reply's subject.
func trimReply(s string) string {
	for {
		t := strings.TrimSpace(s)
		if len(t) < 3 || !strings.EqualFold(t[:3], "re:") {
			return t
		}
		s = t[3:]
	}
}

// stateNotLanded is the state of a request not seen on a tracked branch.
const stateNotLanded = "not landed yet"

// state says what became of a request's verdicts on the tracked branch:
// the verdict follow-up's decision (see package track).
func state(ctx context.Context, st *store.Store, key string) (string, error) {
	f, err := st.GetFollowUp(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return stateNotLanded, nil
	}
	if err != nil {
		return "", err
	}
	if f.State == store.FollowUpOpen {
		if f.Landed == "" {
			return stateNotLanded, nil
		}
		return "landed as " + short(f.Landed) + ", waiting for tracked runs", nil
	}
	confirmed, unseen, unmeasured := 0, 0, 0
	for _, l := range f.Lines {
		switch _, what, _ := strings.Cut(l, "\t"); {
		case strings.HasPrefix(what, "confirmed on "):
			confirmed++
		case strings.HasPrefix(what, "not measured on "):
			unmeasured++
		default:
			unseen++
		}
	}
	branch := f.Track
	if i := strings.LastIndex(branch, "@"); i >= 0 {
		branch = branch[i+1:]
	}
	branch = or(branch, "the tracked branch")
	switch {
	case confirmed > 0 && unseen+unmeasured == 0:
		return "confirmed on " + branch + " after merge", nil
	case confirmed > 0:
		return fmt.Sprintf("partly confirmed on %s after merge (%d of %d)", branch, confirmed, confirmed+unseen+unmeasured), nil
	case unseen > 0:
		return "retracted: not seen on " + branch + " after merge", nil
	}
	return "landed; not measured on " + branch + " after merge", nil
}

// tracked fills the tracked branches' part: change points, stopped
// benchmarks, open regressions and their trends.
func (d *Digest) tracked(ctx context.Context, st *store.Store, from, to time.Time, opts Options,
	runPage func(int64) string, tracked func(venue, ref, patch string) bool) error {
	found, err := st.ChangePointsFound(ctx, from, to)
	if err != nil {
		return err
	}
	d.Counts.ChangePoints = len(found)
	shifts := make([]Shift, len(found))
	for i, c := range found {
		shifts[i] = shiftOf(c, runPage)
	}
	slices.SortStableFunc(shifts, func(a, b Shift) int {
		if a.Regression != b.Regression {
			if a.Regression {
				return -1
			}
			return 1
		}
		return cmp.Compare(math.Abs(b.DeltaPct), math.Abs(a.DeltaPct))
	})
	d.Shifts, d.MoreShifts = cut(shifts, opts.Top)

	// Stopped: measured by a tracked branch in the period before, not in
	// this one.
	length := to.Sub(from)
	before, err := st.SeriesMeasuredBetween(ctx, from.Add(-length), from, opts.Branches)
	if err != nil {
		return err
	}
	now, err := st.SeriesMeasuredBetween(ctx, from, to, opts.Branches)
	if err != nil {
		return err
	}
	type seriesAt struct{ branch, bench, group, params string }
	branchOf := func(m store.MeasuredSeries) string {
		if m.Venue == store.VenueTrack {
			return m.Target
		}
		return strings.TrimPrefix(m.CandidateRef, "refs/heads/")
	}
	measured := map[seriesAt]bool{}
	active := map[string]bool{}
	for _, m := range now {
		if tracked(m.Venue, m.CandidateRef, m.Patch) {
			measured[seriesAt{branchOf(m), m.Benchmark, m.Group, m.Params}] = true
			active[branchOf(m)] = true
		}
	}
	var stopped []Stopped
	seen := map[seriesAt]bool{}
	for _, m := range before {
		k := seriesAt{branchOf(m), m.Benchmark, m.Group, m.Params}
		// A branch not measured at all in the period has not stopped its
		// benchmarks: it was not run.
		if !tracked(m.Venue, m.CandidateRef, m.Patch) || measured[k] || seen[k] || !active[k.branch] {
			continue
		}
		seen[k] = true
		p, _ := parseParams(m.Params) // unreadable params read as none
		label := m.Benchmark
		if s := p.String(); s != "" {
			label += " " + s
		}
		stopped = append(stopped, Stopped{Branch: trackBranch(k.branch), Label: oneLine(label)})
	}
	slices.SortFunc(stopped, func(a, b Stopped) int {
		return cmp.Or(cmp.Compare(a.Branch, b.Branch), cmp.Compare(a.Label, b.Label))
	})
	d.Counts.Stopped = len(stopped)
	d.Stopped, d.MoreStopped = cut(stopped, opts.Top)

	// Open: the newest change point of a series is a regression, with
	// OpenAfter runs or more of its track since.
	history, err := st.ChangePointsBefore(ctx, to)
	if err != nil {
		return err
	}
	newest := map[string]bool{}
	var open []Shift
	trackRuns := map[string][]store.Run{}
	for _, c := range history { // newest first
		k := c.Track + "\x00" + c.Benchmark + "\x00" + c.Group + "\x00" + c.Params.String() + "\x00" + c.Unit + "\x00" + c.Metric
		if newest[k] {
			continue
		}
		newest[k] = true
		s := shiftOf(c, runPage)
		if !s.Regression {
			continue
		}
		runs, ok := trackRuns[c.Track]
		if !ok {
			if runs, err = st.TrackRuns(ctx, c.Track); err != nil {
				return err
			}
			trackRuns[c.Track] = runs
		}
		s.RunsSince = runsSince(runs, c.Commit, to)
		if s.RunsSince >= opts.OpenAfter {
			open = append(open, s)
		}
	}
	slices.SortStableFunc(open, func(a, b Shift) int { return cmp.Compare(math.Abs(b.DeltaPct), math.Abs(a.DeltaPct)) })
	d.Counts.Open = len(open)
	d.Open, d.MoreOpen = cut(open, opts.Top)

	if d.Trends, err = trends(ctx, st, d.Shifts, d.Open, to); err != nil {
		return err
	}
	for i := range d.Shifts {
		d.Shifts[i].Spark = d.sparkOf(d.Shifts[i])
	}
	for i := range d.Open {
		d.Open[i].Spark = d.sparkOf(d.Open[i])
	}
	return nil
}

// runsSince counts a track's runs after the one that measured commit,
// up to to.
func runsSince(runs []store.Run, commit string, to time.Time) int {
	n, after := 0, false
	for _, r := range runs {
		if !r.Finished.Before(to) {
			break
		}
		if after {
			n++
		}
		if r.CandidateCommit == commit {
			after, n = true, 0
		}
	}
	return n
}

func shiftOf(c store.ChangePoint, runPage func(int64) string) Shift {
	label := c.Benchmark
	if p := c.Params.String(); p != "" {
		label += " " + p
	}
	u := c.Unit
	if c.Metric != "" {
		u = c.Metric + " " + u
	}
	worse := c.DeltaPct > 0
	if bench.DirectionOf(c.Unit) == bench.HigherIsBetter {
		worse = c.DeltaPct < 0
	}
	return Shift{ChangePoint: c, Label: oneLine(label + " (" + u + ")"), Regression: worse, RunPage: runPage(c.RunID)}
}

// ReleaseKey is the job key of the run of a release candidate against the
// last release.
func ReleaseKey(rc, release string) string { return "release:" + rc + ".." + release }

// PagePath is the path of a digest's page on perfbot web: the period's
// name and the end of the period.
func PagePath(period string, end time.Time) string {
	return "/digests/" + url.PathEscape(period) + "/" + end.UTC().Format(time.RFC3339)
}

// Period returns the period of the given length that ends at end.
func Period(end time.Time, length time.Duration) (from, to time.Time, err error) {
	if length <= 0 {
		return time.Time{}, time.Time{}, errors.New("digest period must be positive")
	}
	return end.Add(-length), end, nil
}

func parseParams(s string) (bench.Params, error) {
	var p bench.Params
	if s == "" {
		return p, nil
	}
	err := json.Unmarshal([]byte(s), &p)
	return p, err
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// oneLine folds a text from the history onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
