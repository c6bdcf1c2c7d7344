package bot

import (
	"context"
	"fmt"
	"html"
	"log/slog"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/perfbot/perfbot/bisect"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/review"
	"github.com/perfbot/perfbot/runner"
)

// bisectArgs asks for a series to be bisected after its comparison (run
// RunID of Spec) moved a benchmark by at least service.bisect.min_change:
// the answer to Spec then gets a section naming the commit responsible.
type bisectArgs struct {
	Spec  job.Spec `json:"spec" river:"unique"`
	RunID int64    `json:"run_id" river:"unique"`
	// Base and Head are the series' ends as commits.
	Base string `json:"base"`
	Head string `json:"head"`
}

// Kind is the queue's name for bisect jobs.
func (bisectArgs) Kind() string { return "perfbot_bisect" }

// InsertOpts makes a run's bisect unique.
func (bisectArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: rivertype.UniqueOptsByStateDefault()}}
}

// queueBisect queues the bisect of a finished run when the config asks
// for it and the run compared two commits (a pull request's head with
// its base) and moved a benchmark enough. A patch (a mail series) has no
// commits to bisect.
func (s *Service) queueBisect(ctx context.Context, log *slog.Logger, spec JobSpec, cmp *compare.Comparison, runID int64, base, head string) {
	b := s.cfg.Service.Bisect
	if b == nil || spec.Track != "" || spec.Source == "bisect" || spec.CandidateRef == "" || spec.Patch != "" || spec.PatchURL != "" ||
		base == "" || head == "" || len(cmp.Candidates) != 1 || !bisect.Moved(cmp, float64(b.MinChange)) {
		return
	}
	args := bisectArgs{Spec: spec, RunID: runID, Base: base, Head: head}
	if _, _, err := s.q.insertOpts(ctx, args, &river.InsertOpts{Queue: s.cfg.Service.Queue, MaxAttempts: s.cfg.Service.MaxAttempts}); err != nil {
		log.Error("queue bisect", "err", err)
		return
	}
	log.Info("bisect queued", "run", runID, "base", base, "head", head)
}

// bisectWorker bisects a series and adds the finding to its answer.
type bisectWorker struct {
	river.WorkerDefaults[bisectArgs]
	svc *Service
}

// Timeout allows a bisect the comparisons of a long series.
func (w *bisectWorker) Timeout(*river.Job[bisectArgs]) time.Duration {
	return 8 * w.svc.cfg.Service.JobTimeout
}

// Work lists the series, bisects it through the benchmarker, one
// comparison at a time, and puts the run's answer with a "Which commit"
// section in the outbox under the request's key, so that the venue's
// earlier answer is edited (or, where answers cannot be edited, followed).
func (w *bisectWorker) Work(ctx context.Context, j *river.Job[bisectArgs]) error {
	s := w.svc
	a := j.Args
	log := s.log.With("job", j.ID, "key", a.Spec.Key, "bisect", a.Base+".."+a.Head)
	if s.cfg.Service.Bisect == nil {
		log.Info("bisect: service.bisect is no longer set; not bisecting")
		return nil
	}
	cmp, err := s.st.Comparison(ctx, a.RunID)
	if err != nil {
		return fmt.Errorf("bisect: comparison of run %d: %w", a.RunID, err)
	}
	opts := job.Options{Config: s.cfg, Repo: a.Spec.Repo}
	ws, err := runner.OpenWorkspace(ctx, opts.RepoSource(), DefaultCacheDir())
	if err != nil {
		return fmt.Errorf("bisect: %w", err)
	}
	base, series, err := bisect.Series(ctx, ws, a.Base, a.Head)
	ws.Close()
	if err != nil {
		return fmt.Errorf("bisect: %w", err)
	}
	if len(series) < 2 {
		log.Info("bisect: a series of one commit, nothing to do", "commits", len(series))
		return nil
	}
	measure := func(ctx context.Context, from, to string, names []string) (*compare.Comparison, error) {
		spec := JobSpec{Key: fmt.Sprintf("%s/bisect/%.12s..%.12s", a.Spec.Key, from, to), Suites: a.Spec.Suites,
			Repo: a.Spec.Repo, BaseRef: from, CandidateRef: to, Bench: bisect.BenchFilter(names), Source: "bisect",
			Title: a.Spec.Title}
		return s.deps.Benchmarker.Run(ctx, spec, func(job.Progress) {})
	}
	overall := cmp
	if base != a.Base {
		// The base branch moved on since the series left it: the series'
		// own change is measured from where it starts.
		if overall, err = measure(ctx, base, a.Head, nil); err != nil {
			return fmt.Errorf("bisect: compare %.12s with %.12s: %w", base, a.Head, err)
		}
	}
	res, err := bisect.Search(ctx, base, series, overall, measure, bisect.Options{MinChangePct: float64(s.cfg.Service.Bisect.MinChange)})
	if err != nil {
		return err
	}
	log.Info("bisect finished", "commits", len(series), "comparisons", res.Measured, "benchmarks", len(res.Benchmarks))
	msg := s.deps.Scrub.Message(withBisect(s.answerMessage(ctx, a.Spec, cmp, "", a.RunID), res))
	if err := s.putAnswer(ctx, a.Spec.Targets, msg, true, time.Time{}); err != nil {
		return fmt.Errorf("store answer of %s with its bisect: %w", a.Spec.Key, err)
	}
	return nil
}

// withBisect adds the bisect's section to every rendering of an answer.
func withBisect(msg review.Message, res *bisect.Result) review.Message {
	md := bisect.Markdown(res)
	add := func(body, section string) string {
		if body == "" {
			return body
		}
		return strings.TrimRight(body, "\n") + "\n\n" + section
	}
	msg.Markdown = add(msg.Markdown, md)
	msg.ShortMarkdown = add(msg.ShortMarkdown, md)
	msg.ReviewBoardMarkdown = add(msg.ReviewBoardMarkdown, md)
	msg.JIRA = add(msg.JIRA, bisect.JIRA(res))
	msg.ShortJIRA = add(msg.ShortJIRA, bisect.JIRA(res))
	text := bisect.Text(res)
	msg.Text = add(msg.Text, text)
	if msg.HTML != "" {
		msg.HTML += "\n<pre>" + html.EscapeString(text) + "</pre>\n"
	}
	return msg
}
