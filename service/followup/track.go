package followup

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/intake"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/stats"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/track"
	"github.com/perfbot/perfbot/track/changepoint"
)

// trackedRepo is a tracked branch's repository: its own, else the
// project's; a relative local path is relative to the config file.
func (s *Tracker) trackedRepo(b config.TrackedBranch) string {
	repo := b.RepoOr(s.cfg.Project.Repo)
	if repo != "" && !strings.Contains(repo, "://") && !strings.Contains(repo, "@") && !filepath.IsAbs(repo) && s.cfg.File != "" {
		repo = filepath.Join(filepath.Dir(s.cfg.File), repo)
	}
	return repo
}

// TrackHead queues the measurement of head, the new head of a tracked
// branch, against the commit the track measured last (its first parent
// when the track has none; before, when given, is the push's old head).
// A head already measured or queued is not queued again.
func (s *Tracker) TrackHead(ctx context.Context, b config.TrackedBranch, head, before string) error {
	repo := s.trackedRepo(b)
	name := track.Name(repo, b.Branch)
	base := ""
	if last, err := s.st.LastDoneRun(ctx, track.KeyPrefix(name)); err == nil {
		if last.CandidateCommit == head {
			return nil
		}
		base = last.CandidateCommit
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	switch {
	case base != "":
	case b.From != "":
		base = b.From
	case before != "" && strings.Trim(before, "0") != "":
		base = before
	default:
		base = head + "^"
	}
	spec := jobspec.Spec{
		Key:          track.KeyPrefix(name) + head,
		Repo:         repo,
		BaseRef:      base,
		CandidateRef: head,
		Suites:       b.Suites,
		Track:        name,
		Title:        fmt.Sprintf("%s at %.12s", b.Branch, head),
		Source:       "track",
	}
	id, dup, err := s.queue.InsertBench(ctx, spec, s.cfg.Service.Queue, s.cfg.Service.MaxAttempts)
	if err != nil {
		return fmt.Errorf("queue job %s: %w", spec.Key, err)
	}
	s.log.Info("job inserted", "key", spec.Key, "job", id, "duplicate", dup, "source", spec.Source)
	return nil
}

// PollTracked asks each tracked branch's repository for the branch's head
// (git ls-remote) and queues a new head's measurement.
func (s *Tracker) PollTracked(ctx context.Context) error {
	var errs []error
	for _, b := range s.cfg.Track.Branches {
		repo := s.trackedRepo(b)
		head, err := lsRemote(ctx, repo, b.Branch)
		if err == nil {
			err = s.TrackHead(ctx, b, head, "")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("track %s of %s: %w", b.Branch, repo, err))
		}
	}
	return errors.Join(errs...)
}

// TrackPush queues the new head of a pushed branch when the config tracks
// it; repo is the pushed repository's "owner/name". It reports whether
// the push was taken: a tracked branch, and a head that is a commit id.
func (s *Tracker) TrackPush(ctx context.Context, repo, ref, before, after string) (bool, error) {
	branch, ok := strings.CutPrefix(ref, "refs/heads/")
	if !ok || strings.Trim(after, "0") == "" {
		return false, nil // a tag, or a deleted branch
	}
	if !intake.IsCommitID(after) {
		s.log.Warn("push ignored: its head is not a commit id", "ref", ref)
		return false, nil
	}
	if !intake.IsCommitID(before) {
		before = ""
	}
	for _, b := range s.cfg.Track.Branches {
		if b.Branch != branch || !s.isGitHubRepo(b, repo) {
			continue
		}
		return true, s.TrackHead(ctx, b, after, before)
	}
	return false, nil
}

// isGitHubRepo reports whether a tracked branch's repository is the
// GitHub repository owner/name.
func (s *Tracker) isGitHubRepo(b config.TrackedBranch, fullName string) bool {
	if fullName == "" {
		return false
	}
	if b.Repo == "" && strings.EqualFold(s.cfg.Venues.GitHub.Repo, fullName) {
		return true
	}
	u := strings.TrimSuffix(strings.TrimSuffix(b.RepoOr(s.cfg.Project.Repo), "/"), ".git")
	return strings.HasSuffix(strings.ToLower(u), "/"+strings.ToLower(fullName)) ||
		strings.HasSuffix(strings.ToLower(u), ":"+strings.ToLower(fullName))
}

// lsRemote returns the commit a remote branch points at, with git's
// environment scrubbed as for every git perfbot runs.
func lsRemote(ctx context.Context, repo, branch string) (string, error) {
	if strings.HasPrefix(repo, "-") || strings.HasPrefix(branch, "-") {
		return "", fmt.Errorf("repository %q or branch %q starts with '-'", repo, branch)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-c", "safe.directory=*", "ls-remote", "--heads", repo, "refs/heads/"+branch)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent"}
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("git ls-remote %s: %s", repo, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("git ls-remote %s: %w", repo, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if sha, ref, ok := strings.Cut(line, "\t"); ok && ref == "refs/heads/"+branch {
			return sha, nil
		}
	}
	return "", fmt.Errorf("no branch %s in %s", branch, repo)
}

// AfterTrackedRun searches a track's history for change points once a run
// of it finished, and announces the new ones where the config says, once
// each, through the outbox. Failures are logged: the measurement stands without them.
func (s *Tracker) AfterTrackedRun(ctx context.Context, log *slog.Logger, name string) {
	var branch *config.TrackedBranch
	var targets []target.Target
	for i, b := range s.cfg.Track.Branches {
		if track.Name(s.trackedRepo(b), b.Branch) == name {
			branch = &s.cfg.Track.Branches[i]
			if i < len(s.announce) {
				targets = s.announce[i]
			}
		}
	}
	opts := track.Options{Detect: changepoint.Options{Alpha: s.cfg.Track.Alpha, MinChangePct: s.cfg.Track.MinChange,
		Test: changepoint.Test(s.cfg.Track.Test)}}
	if host, err := os.Hostname(); err == nil {
		if deltas, err := s.st.Noise(ctx, host, 50); err == nil && len(deltas) > 0 {
			rule := stats.NoiseRule{FloorPct: 0.5}
			opts.Noise = func(k store.SeriesKey) (float64, bool) {
				n, err := rule.Learn(deltas[store.NoiseKey{Group: k.Group, Benchmark: k.Benchmark, Params: k.Params, Metric: k.Metric, Unit: k.Unit}])
				return n.ThresholdPct, err == nil
			}
		}
	}
	res, err := track.Detect(ctx, s.st, name, opts)
	if err != nil {
		log.Error("change-point detection", "track", name, "err", err)
		return
	}
	log.Info("change points searched", "track", name, "commits", res.Commits, "series", res.Series,
		"found", len(res.Found), "new", len(res.Added))
	if branch == nil {
		return
	}
	s.followUps(ctx, log, name, branch)
	if len(branch.Post) == 0 {
		return
	}
	cps, err := s.st.ChangePoints(ctx, store.ChangePointFilter{Track: name, Unposted: true})
	if err != nil {
		log.Error("change points to announce", "track", name, "err", err)
		return
	}
	for _, c := range cps {
		if key, ok := s.announcedBy(ctx, c); ok {
			// A reviewed patch announced it; its answer is followed up.
			log.Info("change point announced by a request", "change_point", c.ID, "key", key)
			if err := s.st.MarkChangePointPosted(ctx, c.ID, time.Now()); err != nil {
				log.Error("mark change point posted", "change_point", c.ID, "err", err)
			}
			continue
		}
		// The outbox delivers the announcement, with retries; its key is
		// stable, so putting it again (a run retried, a restart) does not
		// post it twice. Once put, the change point counts as posted; a
		// failed put is tried again after the next run.
		msg := s.scrub.Message(track.Message(c))
		if err := s.outbox.Put(ctx, targets, msg, true, time.Time{}); err != nil {
			log.Error("announce change point", "change_point", c.ID, "err", err)
			continue
		}
		log.Info("change point announcement put in the outbox", "change_point", c.ID, "key", msg.Key, "targets", len(targets))
		if err := s.st.MarkChangePointPosted(ctx, c.ID, time.Now()); err != nil {
			log.Error("mark change point posted", "change_point", c.ID, "err", err)
		}
	}
}
