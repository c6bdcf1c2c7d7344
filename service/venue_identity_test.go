package service

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/fake/githubfake"
	"github.com/perfbot/perfbot/internal/servicetest"
	"github.com/perfbot/perfbot/internal/testwait"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/github"
)

// TestAnswerOwnCommentOnMeasuredCommit: through the service and the real
// GitHub poster, with venues.github.login unset. The pull request's author
// planted the request's marker in a comment of theirs before the run, and
// pushed a new head while it ran. perfbot answers in a comment of its own
// account, leaves the planted one as it was, puts every status on the
// commit it measured and says in the answer that the head moved.
func TestAnswerOwnCommentOnMeasuredCommit(t *testing.T) {
	measured, pushed := strings.Repeat("5", 40), strings.Repeat("c", 40)
	spec := JobSpec{Key: "github:acme/store#3/comment/9", Targets: []target.Target{target.MustParse("github:acme/store#3")}, Title: "faster scan",
		Source: "github", CandidateRef: "pull/3/head", CandidateCommit: measured}
	planted := github.Marker(spec.Key) + "\n**perfbot: running**"
	f := &githubfake.Comments{Comments: map[int64]string{1: planted}, Authors: map[int64]string{1: "mallory"}, NextID: 1, Head: measured}
	release := make(chan struct{})
	svc, _ := liveService(t, f, BenchmarkerFunc(func(ctx context.Context, spec jobspec.Spec, progress job.ProgressFunc) (*compare.Comparison, error) {
		progress(job.Progress{Stage: "run", Suite: "wal", Variant: "candidate", Round: 1, Rounds: 4})
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		f.Lock()
		f.Head = pushed // the author pushes while the run measures the approved head
		f.Unlock()
		return &compare.Comparison{Base: "base", Candidates: []string{"patch"},
			Summary: []compare.Tally{{Variant: "patch", Better: 2}},
			Rows: []compare.Row{{Benchmark: "Scan", Unit: "ns/op", Base: &compare.Cell{Center: 100},
				Candidates: []compare.Candidate{{Variant: "patch", Presence: compare.Both, Cell: compare.Cell{Center: 80},
					DeltaPct: -20, Ratio: 0.8, P: 0.002, Significant: true, Verdict: compare.Better}}}},
			Provenance: provenance.Record{Sides: []provenance.Side{
				{Variant: "base", Ref: "main", Commit: strings.Repeat("b", 40)},
				{Variant: "patch", Ref: "pull/3/head", Commit: measured}}}}, nil
	}))
	ctx := context.Background()
	if _, _, err := svc.Enqueue(ctx, spec); err != nil {
		t.Fatal(err)
	}
	ownComment := func(want string) func() bool {
		return func() bool {
			f.Lock()
			defer f.Unlock()
			for id, b := range f.Comments {
				if _, other := f.Authors[id]; !other && strings.Contains(b, want) {
					return true
				}
			}
			return false
		}
	}
	testwait.Until(t, 30*time.Second, "perfbot's own running answer", ownComment("**perfbot: running**: suite wal"))
	close(release)
	servicetest.WaitAnswered(t, svc.Store(), spec.Key)
	f.Lock()
	defer f.Unlock()
	if f.Comments[1] != planted {
		t.Errorf("the planted comment was edited:\n%s", f.Comments[1])
	}
	var own []string
	for id, b := range f.Comments {
		if id != 1 {
			own = append(own, b)
		}
	}
	if len(own) != 1 || !strings.Contains(own[0], "patch: 2 better, 0 worse") ||
		!strings.Contains(own[0], "measured 5555555; the pull request's head is now ccccccc: a new run needs a new `/perfbot run`") {
		t.Errorf("perfbot's comments %q: want one, with the result and the moved head", own)
	}
	if len(f.Statuses) == 0 || f.Statuses[len(f.Statuses)-1] != measured+":success" {
		t.Errorf("statuses %q: want the result's success on the measured commit", f.Statuses)
	}
	for _, st := range f.Statuses {
		if strings.HasPrefix(st, pushed) {
			t.Errorf("status %q on the commit pushed during the run, never measured", st)
		}
	}
}
