package service

import (
	"context"
	"fmt"
	"html"
	"log/slog"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/bisect"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/runner"
	"github.com/perfbot/perfbot/service/outbox"
	"github.com/perfbot/perfbot/target"
)

// bisectArgs asks for a series to be bisected after its comparison (run
// RunID of Spec) moved a benchmark by at least service.bisect.min_change:
// the answer to Spec then gets a section naming the commit responsible.
type bisectArgs struct {
	Spec  jobspec.Spec `json:"spec" river:"unique"`
	RunID int64        `json:"run_id" river:"unique"`
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
	targets := editableTargets(spec.Targets)
	if len(targets) == 0 {
		return
	}
	args := bisectArgs{Spec: spec, RunID: runID, Base: base, Head: head}
	_, duplicate, err := s.q.Insert(ctx, args, &river.InsertOpts{Queue: s.cfg.Service.Queue, MaxAttempts: s.cfg.Service.MaxAttempts})
	if err != nil {
		log.Error("queue bisect", "err", err)
		return
	}
	log.Info("bisect queued", "run", runID, "base", base, "head", head, "duplicate", duplicate)
	if duplicate {
		return
	}
	msg := withSection(s.answers.Answer(ctx, spec, cmp, "", runID),
		plainSection("Which commit: the series' commits are being measured; this section will name the commit responsible."))
	if err := s.outbox.Put(ctx, targets, msg, true, time.Time{}); err != nil {
		log.Error("answer with the bisect pending", "err", err)
	}
}

// editableTargets are the targets whose answer is edited in place
// (outbox.Live: GitHub, GitLab, JIRA): only there can a bisect's section join the answer; a
// second mail or Review Board review is not sent for it.
func editableTargets(targets []target.Target) []target.Target {
	var out []target.Target
	for _, t := range targets {
		if outbox.Live(t.Venue) {
			out = append(out, t)
		}
	}
	return out
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
	cmp, err := s.st.Comparison(ctx, a.RunID)
	if err != nil {
		return fmt.Errorf("bisect: comparison of run %d: %w", a.RunID, err)
	}
	targets := editableTargets(a.Spec.Targets)
	sec, err := w.bisect(ctx, log, a, cmp)
	if err != nil {
		if j.Attempt < j.MaxAttempts && ctx.Err() == nil {
			return err
		}
		// The last attempt: the answer must not keep promising a result.
		log.Error("bisect failed", "err", err)
		failed := plainSection("Which commit: the series could not be bisected: " + err.Error())
		sec = &failed
	}
	msg := s.answers.Answer(ctx, a.Spec, cmp, "", a.RunID)
	if sec != nil {
		msg = withSection(msg, *sec)
	}
	if perr := s.outbox.Put(context.WithoutCancel(ctx), targets, s.deps.Scrub.Message(msg), true, time.Time{}); perr != nil {
		return fmt.Errorf("store answer of %s with its bisect: %w", a.Spec.Key, perr)
	}
	return err
}

// bisect bisects the series and returns the answer's section; nil when
// there is nothing to say (a series of one commit, service.bisect unset).
func (w *bisectWorker) bisect(ctx context.Context, log *slog.Logger, a bisectArgs, cmp *compare.Comparison) (*section, error) {
	s := w.svc
	if s.cfg.Service.Bisect == nil {
		log.Info("bisect: service.bisect is no longer set; not bisecting")
		return nil, nil
	}
	opts := job.Options{Config: s.cfg, Repo: a.Spec.Repo}
	ws, err := runner.OpenWorkspace(ctx, opts.RepoSource(), DefaultCacheDir())
	if err != nil {
		return nil, fmt.Errorf("bisect: %w", err)
	}
	base, series, err := bisect.Series(ctx, ws, a.Base, a.Head)
	ws.Close()
	if err != nil {
		return nil, fmt.Errorf("bisect: %w", err)
	}
	if len(series) < 2 {
		log.Info("bisect: a series of one commit, nothing to do", "commits", len(series))
		return nil, nil
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
			return nil, fmt.Errorf("bisect: compare %.12s with %.12s: %w", base, a.Head, err)
		}
	}
	res, err := bisect.Search(ctx, base, series, overall, measure, bisect.Options{MinChangePct: float64(s.cfg.Service.Bisect.MinChange)})
	if err != nil {
		return nil, err
	}
	log.Info("bisect finished", "commits", len(series), "comparisons", res.Measured, "benchmarks", len(res.Benchmarks))
	return &section{markdown: bisect.Markdown(res), jira: bisect.JIRA(res), text: bisect.Text(res)}, nil
}

// section is a part added to every rendering of an answer.
type section struct{ markdown, jira, text string }

// plainSection is a sentence of perfbot's own as a section; the text it
// carries (an error) is escaped per venue.
func plainSection(s string) section {
	return section{markdown: "_" + report.MarkdownEscape(s) + "_\n", jira: report.JIRAEscape(s) + "\n", text: s + "\n"}
}

// withSection adds sec to every rendering of an answer, short ones
// included.
func withSection(msg answer.Answer, sec section) answer.Answer {
	add := func(body, part string) string {
		if body == "" {
			return body
		}
		return strings.TrimRight(body, "\n") + "\n\n" + part
	}
	for _, f := range answer.Formats() {
		r, ok := msg.Renderings[f]
		if !ok {
			continue
		}
		switch f {
		case answer.MarkdownGFM, answer.MarkdownRB:
			r = answer.Rendering{Full: add(r.Full, sec.markdown), Short: add(r.Short, sec.markdown)}
		case answer.JIRAWiki:
			r = answer.Rendering{Full: add(r.Full, sec.jira), Short: add(r.Short, sec.jira)}
		case answer.Text:
			r = answer.Rendering{Full: add(r.Full, sec.text), Short: add(r.Short, sec.text)}
		case answer.HTML:
			if r.Full != "" {
				p := "<pre>" + html.EscapeString(sec.text) + "</pre>\n"
				if i := strings.LastIndex(r.Full, "</body>"); i >= 0 {
					r.Full = r.Full[:i] + p + r.Full[i:]
				} else {
					r.Full += "\n" + p
				}
			}
		}
		msg.Set(f, r)
	}
	return msg
}
