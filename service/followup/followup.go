package followup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/intake"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/track"
)

// Verdicts followed up (see track.FollowUp): a request whose answer called
// benchmarks better or worse is remembered (OpenFollowUp); once it landed
// on a tracked branch (RecordMerge, or a tracked commit matched by message
// or patch-id, track.MatchLandings) the tracked runs after it decide the
// follow-up, and the answer is edited with its lines through the outbox,
// once; where an answer cannot be edited (mail, Review Board, Gerrit) a
// short reply carries them instead, once. A change point that such a request announced is not announced
// again.

// OpenFollowUp remembers a finished request's better and worse verdicts,
// when branches are tracked and the request can be linked to a landing
// (a pull or merge request, or a patch whose patch-id can be matched). Failures
// are logged: the answer stands.
func (s *Tracker) OpenFollowUp(ctx context.Context, log *slog.Logger, spec jobspec.Spec, run *store.Run) {
	if spec.Track != "" || len(s.cfg.Track.Branches) == 0 || run.Venue == "" {
		return
	}
	if spec.Patch == "" && run.Venue != "github" && run.Venue != "gitlab" {
		return // nothing could link it to a landing: a schedule's run, say
	}
	claims, err := s.st.RunVerdicts(ctx, run.ID, string(compare.Better), string(compare.Worse))
	if err != nil || len(claims) == 0 {
		if err != nil {
			log.Error("verdicts to follow up", "err", err)
		}
		return
	}
	f := store.FollowUp{Key: spec.Key, RunID: run.ID, Venue: run.Venue, Target: run.Target}
	if spec.Patch != "" {
		if f.PatchID, err = track.PatchID(ctx, []byte(spec.Patch)); err != nil {
			log.Warn("patch-id of the request's patch", "err", err)
		}
	}
	if err := s.st.OpenFollowUp(ctx, f); err != nil {
		log.Error("open follow-up", "err", err)
	}
}

// RecordMerge records that pull request number of the GitHub repository
// repo ("owner/name") was merged as commit; its open follow-ups wait for
// the tracked runs after that commit.
func (s *Tracker) RecordMerge(ctx context.Context, repo string, number int, commit string) error {
	if !intake.IsCommitID(commit) {
		return fmt.Errorf("merge of %s#%d: %q is not a commit id", repo, number, commit)
	}
	n, err := s.st.LandTarget(ctx, "github", fmt.Sprintf("%s#%d", repo, number), commit, store.LandedMerged)
	if err == nil && n > 0 {
		s.log.Info("request landed", "pull", fmt.Sprintf("%s#%d", repo, number), "commit", commit, "follow_ups", n)
	}
	return err
}

// RecordGitLabMerge records that merge request iid of the GitLab project
// ("group/project") was merged as commit (the Merge Request Hook's
// merge_commit_sha); its open follow-ups wait for the tracked runs after
// that commit.
func (s *Tracker) RecordGitLabMerge(ctx context.Context, project string, iid int64, commit string) error {
	if !intake.IsCommitID(commit) {
		return fmt.Errorf("merge of %s!%d: %q is not a commit id", project, iid, commit)
	}
	mr := target.MR(project, int(iid))
	n, err := s.st.LandTarget(ctx, mr.Venue, mr.Where(), commit, store.LandedMerged)
	if err == nil && n > 0 {
		s.log.Info("request landed", "merge_request", mr.Where(), "commit", commit, "follow_ups", n)
	}
	return err
}

// followUps runs after each run of a tracked branch: it links open
// requests to the commits the run brought (when the repository can be
// read), decides the follow-ups whose tracked runs are in, and edits
// their answers. Failures are logged.
func (s *Tracker) followUps(ctx context.Context, log *slog.Logger, name string, b *config.TrackedBranch) {
	open, err := s.st.FollowUps(ctx, store.FollowUpOpen)
	if err != nil {
		log.Error("follow-ups", "err", err)
		return
	}
	runs, err := s.st.TrackRuns(ctx, name)
	if err != nil || len(runs) == 0 || len(open) == 0 {
		if err != nil {
			log.Error("follow-ups: tracked runs", "err", err)
		}
		s.putFollowUps(ctx, log)
		return
	}
	dir, done := s.trackGitDir(ctx, log, *b)
	defer done()
	if dir != "" {
		last := runs[len(runs)-1]
		if commits, err := track.Commits(ctx, dir, last.BaseCommit, last.CandidateCommit); err != nil {
			log.Warn("follow-ups: commits of the tracked run", "err", err)
		} else {
			for key, m := range track.MatchLandings(open, commits, func(f store.FollowUp) int { return s.pullOf(*b, f) }) {
				if err := s.st.LandFollowUp(ctx, key, m[0], m[1]); err != nil {
					log.Error("follow-ups: landing", "key", key, "err", err)
				} else {
					log.Info("request landed", "key", key, "commit", m[0], "how", m[1])
				}
			}
			if open, err = s.st.FollowUps(ctx, store.FollowUpOpen); err != nil {
				log.Error("follow-ups", "err", err)
				return
			}
		}
	}
	// Follow-ups landed together read the same tracked runs: each run's
	// verdicts are read once.
	tracked := map[int64][]store.Verdict{}
	window := s.cfg.Track.FollowupWindow()
	for _, f := range open {
		if f.Landed == "" {
			continue
		}
		start := landingRun(ctx, dir, runs, f.Landed)
		if start < 0 {
			continue // not on this branch yet
		}
		claims, err := s.st.RunVerdicts(ctx, f.RunID, string(compare.Better), string(compare.Worse))
		if err != nil {
			log.Error("follow-ups: claims", "key", f.Key, "err", err)
			continue
		}
		var post []track.PostRun
		for _, r := range runs[start:min(start+window, len(runs))] {
			vs, ok := tracked[r.ID]
			if !ok {
				if vs, err = s.st.RunVerdicts(ctx, r.ID); err != nil {
					log.Error("follow-ups: tracked verdicts", "run", r.ID, "err", err)
					break
				}
				tracked[r.ID] = vs
			}
			post = append(post, track.PostRun{Commit: r.CandidateCommit, Verdicts: vs})
		}
		lines, ok := track.FollowUp(b.Branch, claims, post, window)
		if !ok {
			continue
		}
		if _, err := s.st.DecideFollowUp(ctx, f.Key, name, lines); err != nil {
			log.Error("follow-ups: decide", "key", f.Key, "err", err)
		}
	}
	s.putFollowUps(ctx, log)
}

// landingRun returns the index of the first tracked run whose commit is
// landed or, when the repository can be read, descends from it; -1 when
// none does yet. The runs follow the branch's first-parent line, so the
// runs descending from landed are a suffix of them: a binary search asks
// git about a few.
func landingRun(ctx context.Context, dir string, runs []store.Run, landed string) int {
	for i, r := range runs {
		if r.CandidateCommit == landed {
			return i
		}
	}
	if dir == "" || !track.IsAncestor(ctx, dir, landed, runs[len(runs)-1].CandidateCommit) {
		return -1
	}
	return sort.Search(len(runs), func(i int) bool { return track.IsAncestor(ctx, dir, landed, runs[i].CandidateCommit) })
}

// putFollowUps edits the answers of the decided follow-ups: the answer
// each target holds gets the follow-up's lines, as a new final version of
// the same key, which the venue's poster edits in place. Venues that
// cannot edit an answer (mail, Review Board, Gerrit) get a short reply
// instead (putFollowUpReply).
func (s *Tracker) putFollowUps(ctx context.Context, log *slog.Logger) {
	decided, err := s.st.FollowUps(ctx, store.FollowUpDecided)
	if err != nil {
		log.Error("follow-ups", "err", err)
		return
	}
	for _, f := range decided {
		if err := s.putFollowUp(ctx, f); err != nil {
			log.Error("follow-up edit", "key", f.Key, "err", err)
			continue
		}
		if err := s.st.FollowUpPut(ctx, f.Key); err != nil {
			log.Error("follow-up edit", "key", f.Key, "err", err)
			continue
		}
		log.Info("answer followed up", "key", f.Key, "lines", f.Lines)
	}
}

// putFollowUp puts one follow-up's edit in the outbox. An answer that
// carries a follow-up already (put before a restart) is not edited again.
func (s *Tracker) putFollowUp(ctx context.Context, f store.FollowUp) error {
	// The store keeps a target as its venue and address: read once here.
	targets := []string{f.Venue + ":" + f.Target}
	posts, err := s.st.PostsByKey(ctx, f.Key)
	if err != nil {
		return err
	}
	for _, p := range posts {
		if t := p.Venue + ":" + p.Target; t != targets[0] {
			targets = append(targets, t)
		}
	}
	var fresh *answer.Answer
	for _, t := range targets {
		to, err := target.Parse(t)
		if err != nil {
			continue
		}
		if !s.outbox.Live(to.Venue) {
			if err := s.putFollowUpReply(ctx, f, to); err != nil {
				return err
			}
			continue
		}
		var msg answer.Answer
		old, err := s.st.GetAnswer(ctx, f.Key, to.String())
		switch {
		case err == nil:
			if err := json.Unmarshal(old.Message, &msg); err != nil {
				return fmt.Errorf("answer of %s: %w", f.Key, err)
			}
		case errors.Is(err, store.ErrNotFound):
			// Pruned from the outbox: the answer is rendered again from
			// the stored comparison, as the worker rendered it.
			if fresh == nil {
				m, err := s.renderStored(ctx, f.Key, f.RunID)
				if err != nil {
					return err
				}
				fresh = &m
			}
			msg = *fresh
		default:
			return err
		}
		if track.HasFollowUp(msg) {
			continue
		}
		edited := track.WithFollowUp(msg, f.Lines)
		if err := s.outbox.Put(ctx, []target.Target{to}, edited, true, time.Time{}); err != nil {
			return err
		}
	}
	return nil
}

// followUpSuffix ends the key of a follow-up reply: the request's key
// plus it is the reply's outbox row (and its Message-ID, its Review Board
// marker), so it is delivered with retries and recognised if resent.
const followUpSuffix = "/followup"

// putFollowUpReply puts the follow-up as a reply of its own for a venue
// whose answers cannot be edited: a mail in the thread of perfbot's
// earlier answer ("Re: " its subject, In-Reply-To and References naming
// it), a new review on a Review Board request, a new Gerrit message. A
// reply already in the outbox (put before a restart) is not put again.
func (s *Tracker) putFollowUpReply(ctx context.Context, f store.FollowUp, to target.Target) error {
	key := f.Key + followUpSuffix
	if _, err := s.st.GetAnswer(ctx, key, to.String()); err == nil {
		return nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	var orig answer.Answer
	link := ""
	old, err := s.st.GetAnswer(ctx, f.Key, to.String())
	switch {
	case err == nil:
		if err := json.Unmarshal(old.Message, &orig); err != nil {
			return fmt.Errorf("answer of %s: %w", f.Key, err)
		}
		link = old.Link
	case errors.Is(err, store.ErrNotFound):
		if orig, err = s.renderStored(ctx, f.Key, f.RunID); err != nil {
			return err
		}
	default:
		return err
	}
	if link == "" {
		posts, err := s.st.PostsByKey(ctx, f.Key)
		if err != nil {
			return err
		}
		for _, p := range posts {
			if p.Venue == to.Venue && p.Target == to.Where() {
				link = p.Link
			}
		}
	}
	reply := track.FollowUpReply(orig, key, f.Lines)
	if to.Venue == "mail" && strings.HasPrefix(link, "<") && strings.HasSuffix(link, ">") {
		// Under perfbot's earlier answer, itself under the patch.
		if orig.InReplyTo != "" {
			reply.References = append(append([]string(nil), orig.References...), orig.InReplyTo)
		}
		reply.InReplyTo = link
	}
	return s.outbox.Put(ctx, []target.Target{to}, reply, true, time.Time{})
}

// renderStored renders a stored run's answer again.
func (s *Tracker) renderStored(ctx context.Context, key string, runID int64) (answer.Answer, error) {
	cmp, err := s.st.Comparison(ctx, runID)
	if err != nil {
		return answer.Answer{}, err
	}
	return s.render.Answer(ctx, jobspec.Spec{Key: key}, cmp, "", runID), nil
}

// pullOf is the number of a follow-up's pull request when it is one of
// the tracked branch's GitHub repository, else 0.
func (s *Tracker) pullOf(b config.TrackedBranch, f store.FollowUp) int {
	if f.Venue != "github" {
		return 0
	}
	repo, num, ok := strings.Cut(f.Target, "#")
	if !ok || !s.isGitHubRepo(b, repo) {
		return 0
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return 0
	}
	return n
}

// trackGitDir is a git directory holding the tracked branch's commits: a
// local repository as is, a remote one through the cached clone jobs use
// (fetched). "" when neither can be read; done releases it.
func (s *Tracker) trackGitDir(ctx context.Context, log *slog.Logger, b config.TrackedBranch) (string, func()) {
	repo := s.trackedRepo(b)
	if repo == "" {
		return "", func() {}
	}
	if !strings.Contains(repo, "://") && !strings.Contains(repo, "@") {
		abs, err := filepath.Abs(repo)
		if err != nil {
			return "", func() {}
		}
		return abs, func() {}
	}
	if s.clones == nil {
		return "", func() {}
	}
	dir, done, err := s.clones.GitDir(ctx, repo)
	if err != nil {
		log.Warn("follow-ups: tracked repository", "repo", repo, "err", err)
		return "", func() {}
	}
	return dir, done
}

// announcedBy returns the request whose answer announced a change point:
// one that landed as the change point's first commit and called that
// benchmark better or worse the same way.
func (s *Tracker) announcedBy(ctx context.Context, c store.ChangePoint) (string, bool) {
	all, err := s.st.FollowUps(ctx, "")
	if err != nil {
		return "", false
	}
	for _, f := range all {
		if f.Landed != c.Commit {
			continue
		}
		claims, err := s.st.RunVerdicts(ctx, f.RunID, string(compare.Better), string(compare.Worse))
		if err == nil && track.Announced(c, f.Landed, claims) {
			return f.Key, true
		}
	}
	return "", false
}
