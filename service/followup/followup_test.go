package followup_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/service"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/internal/pgtest"
	"github.com/perfbot/perfbot/internal/servicetest"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/track"
	"github.com/perfbot/perfbot/venue/github"
	"github.com/perfbot/perfbot/venue/retry"
)

// fakeGitHubPulls is GitHub's issue comment API for any pull request of
// acme/store, as documented: list (GET), create (POST, 201) and edit
// (PATCH) comments; the pull request itself and commit statuses.
type fakeGitHubPulls struct {
	mu       sync.Mutex
	comments map[int64]string
	issue    map[int64]int
	nextID   int64
	edits    map[int]int
}

var (
	issueComments = regexp.MustCompile(`^/api/v3/repos/acme/store/issues/([0-9]+)/comments$`)
	editComment   = regexp.MustCompile(`^/api/v3/repos/acme/store/issues/comments/([0-9]+)$`)
	pullPath      = regexp.MustCompile(`^/api/v3/repos/acme/store/pulls/([0-9]+)$`)
)

func (f *fakeGitHubPulls) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	var in struct {
		Body string `json:"body"`
	}
	comment := func(id int64) map[string]any {
		return map[string]any{"id": id, "body": f.comments[id], "user": map[string]any{"login": "perfbot[bot]"},
			"html_url": fmt.Sprintf("https://github.example/acme/store/pull/%d#issuecomment-%d", f.issue[id], id)}
	}
	var n int
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v3/user":
		json.NewEncoder(w).Encode(map[string]any{"login": "perfbot[bot]", "id": 1, "type": "Bot"})
	case issueComments.MatchString(r.URL.Path):
		fmt.Sscan(issueComments.FindStringSubmatch(r.URL.Path)[1], &n)
		if r.Method == http.MethodGet {
			list := []map[string]any{}
			for id := int64(1); id <= f.nextID; id++ {
				if f.issue[id] == n {
					list = append(list, comment(id))
				}
			}
			json.NewEncoder(w).Encode(list)
			return
		}
		json.NewDecoder(r.Body).Decode(&in)
		f.nextID++
		f.comments[f.nextID], f.issue[f.nextID] = in.Body, n
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(comment(f.nextID))
	case r.Method == http.MethodPatch && editComment.MatchString(r.URL.Path):
		var id int64
		fmt.Sscan(editComment.FindStringSubmatch(r.URL.Path)[1], &id)
		if _, ok := f.comments[id]; !ok {
			http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
			return
		}
		json.NewDecoder(r.Body).Decode(&in)
		f.comments[id] = in.Body
		f.edits[f.issue[id]]++
		json.NewEncoder(w).Encode(comment(id))
	case r.Method == http.MethodGet && pullPath.MatchString(r.URL.Path):
		fmt.Sscan(pullPath.FindStringSubmatch(r.URL.Path)[1], &n)
		json.NewEncoder(w).Encode(map[string]any{"number": n, "head": map[string]any{"sha": strings.Repeat("c", 40)}})
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/api/v3/repos/acme/store/statuses/"):
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id":1}`)
	default:
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	}
}

// pull returns the comments of pull request n and how often they were
// edited.
func (f *fakeGitHubPulls) pull(n int) ([]string, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for id := int64(1); id <= f.nextID; id++ {
		if f.issue[id] == n {
			out = append(out, f.comments[id])
		}
	}
	return out, f.edits[n]
}

// measureTracked has svc poll its tracked branches and waits until the
// branch name has a measurement of commit c.
func measureTracked(t *testing.T, svc *service.Service, name, c string) {
	t.Helper()
	ctx := context.Background()
	if err := svc.Tracker().PollTracked(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		have, err := svc.Store().TrackedCommits(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if have[c] {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("commit %.7s was not measured", c)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// levelRepo is a git repository whose commits carry benchmark levels:
// each commit gets the levels in cur when it is made, scaled.
type levelRepo struct {
	*gitrepo.Repo
	mu     sync.Mutex
	levels map[string]map[string]float64
	cur    map[string]float64
}

func newLevelRepo(t *testing.T) *levelRepo {
	return &levelRepo{Repo: gitrepo.New(t), levels: map[string]map[string]float64{},
		cur: map[string]float64{"Append": 100, "Read": 100, "Scan": 100}}
}

// commit commits files and gives the commit the current levels times
// scale.
func (r *levelRepo) commit(msg string, files map[string]string, scale float64) string {
	c := r.Commit(msg, files)
	l := map[string]float64{}
	for k, v := range r.cur {
		l[k] = v * scale
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.levels[c] = l
	return c
}

// comparison compares the levels of the commit baseRef names with those
// of commit cand.
func (r *levelRepo) comparison(baseRef, cand string) *compare.Comparison {
	base := r.Git("rev-parse", baseRef)
	r.mu.Lock()
	defer r.mu.Unlock()
	return levelsComparison(base, cand, r.levels[base], r.levels[cand])
}

// levelsComparison compares the levels of several benchmarks (ns/op),
// calling a change of more than 5% better or worse.
func levelsComparison(base, cand string, b, c map[string]float64) *compare.Comparison {
	cmp := &compare.Comparison{Base: "base", Candidates: []string{cand},
		Provenance: provenance.Record{Sides: []provenance.Side{{Variant: "base", Commit: base}, {Variant: cand, Ref: cand, Commit: cand}}}}
	for _, name := range []string{"Append", "Read", "Scan"} {
		d := (c[name] - b[name]) / b[name] * 100
		v := compare.Same
		switch {
		case d < -5:
			v = compare.Better
		case d > 5:
			v = compare.Worse
		}
		cmp.Rows = append(cmp.Rows, compare.Row{Benchmark: name, Params: bench.Params{}, Unit: "ns/op",
			Base: &compare.Cell{Center: b[name], N: 1, Samples: []float64{b[name]}},
			Candidates: []compare.Candidate{{Variant: cand, Presence: compare.Both, DeltaPct: d, Verdict: v,
				Cell: compare.Cell{Center: c[name], N: 1, Samples: []float64{c[name]}}}}})
	}
	return cmp
}

// TestVerdictFollowUp: pull request 3 is answered "Append -95%" and lands
// by merge (the webhook's merge_commit_sha); the tracked run of its commit
// shows -94%, and its comment is edited to say so. Pull request 4 is
// answered "Scan -50%" and lands as a commit whose message names it,
// pushed with the next one; five tracked runs from that push on pass
// without it, and its comment says so. Append's
// change point, which pull request 3 announced, is not announced again;
// Read's, which no request announced, is posted to the list, once. A
// restart edits nothing twice. On SQLite and PostgreSQL.
func TestVerdictFollowUp(t *testing.T) {
	for _, driver := range []string{store.SQLite, store.Postgres} {
		t.Run(driver, func(t *testing.T) { testVerdictFollowUp(t, driver) })
	}
}

func testVerdictFollowUp(t *testing.T, driver string) {
	r := newLevelRepo(t)
	commit := func(msg string, i int) string {
		return r.commit(msg, map[string]string{"n": fmt.Sprint(i)}, 1+float64(i%3)/100)
	}
	first := commit("commit 0", 0)

	f := &fakeGitHubPulls{comments: map[int64]string{}, issue: map[int64]int{}, edits: map[int]int{}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	gp, err := github.New(github.Config{BaseURL: srv.URL + "/api/v3/", Token: "t0ken", Retry: retry.Policy{Attempts: 2, Base: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	list := &servicetest.RecordingPoster{}
	poster := service.PosterFunc(func(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
		if to.Venue == "github" {
			return gp.Post(ctx, to, msg)
		}
		return list.Post(ctx, to, msg)
	})
	bencher := service.BenchmarkerFunc(func(ctx context.Context, spec jobspec.Spec, _ job.ProgressFunc) (*compare.Comparison, error) {
		if spec.Track == "" { // a pull request's claim
			b := map[string]float64{"Append": 100, "Read": 100, "Scan": 100}
			c := map[string]float64{"Append": 100, "Read": 100, "Scan": 100}
			switch spec.Title {
			case "append":
				c["Append"] = 5
			case "scan":
				c["Scan"] = 50
			}
			return levelsComparison("base", "patch", b, c), nil
		}
		return r.comparison(spec.BaseRef, spec.CandidateRef), nil
	})
	dsn := filepath.Join(t.TempDir(), "perfbot.db")
	if driver == store.Postgres {
		dsn = pgtest.Start(t).NewDB(t)
	}
	cfg := servicetest.Config("serve", driver, dsn, true)
	// The tracked branch is the project's, whose GitHub repository is
	// acme/store: commit messages naming its pull requests count.
	cfg.Venues.GitHub.Repo = "acme/store"
	cfg.Project.Repo = r.Dir
	cfg.Track.Branches = []config.TrackedBranch{{Branch: "main", From: first, Post: []string{"mail:dev@example.org"}}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	start := func() (*service.Service, func()) {
		ctx, cancel := context.WithCancel(context.Background())
		svc, err := service.Open(ctx, cfg, service.ModeServe, service.Deps{Poster: poster, Benchmarker: bencher})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- svc.Run(ctx) }()
		return svc, func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
			svc.Close()
		}
	}
	svc, stop := start()
	ctx := context.Background()
	name := track.Name(r.Dir, "main")
	waitFor := func(pr int, want string) string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			bodies, _ := f.pull(pr)
			if len(bodies) > 1 {
				t.Fatalf("pull request %d has %d comments, want one answer edited in place: %q", pr, len(bodies), bodies)
			}
			if len(bodies) == 1 && strings.Contains(bodies[0], want) {
				return bodies[0]
			}
			if time.Now().After(deadline) {
				t.Fatalf("pull request %d: no comment with %q; comments: %q", pr, want, bodies)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	// The two requests are answered.
	for _, req := range []struct {
		pr    int
		title string
	}{{3, "append"}, {4, "scan"}} {
		spec := jobspec.Spec{Key: fmt.Sprintf("github:acme/store#%d/comment/%d", req.pr, req.pr*10),
			Targets: []target.Target{target.MustParse(fmt.Sprintf("github:acme/store#%d", req.pr))}, Title: req.title, Source: "github"}
		if _, _, err := svc.Enqueue(ctx, spec); err != nil {
			t.Fatal(err)
		}
		servicetest.WaitAnswered(t, svc.Store(), spec.Key)
	}
	waitFor(3, "Append")

	var landed3, landed4, readStep string
	for i := 1; i <= 15; i++ {
		msg := fmt.Sprintf("commit %d", i)
		switch i {
		case 7:
			r.cur["Append"] = 5.9 // the pull request's -95% shows as -94%
			msg = "Merge pull request #3 from alice/append\n\nFaster append"
		case 8:
			msg = "Scan in batches (#4)" // squashed; Scan does not move
		case 10:
			r.cur["Read"] = 130 // nobody announced this one
		}
		c := commit(msg, i)
		switch i {
		case 7:
			landed3 = c
			// GitHub's pull_request closed event (merged) names the merge
			// commit before the push is measured.
			if err := svc.Tracker().RecordMerge(ctx, "acme/store", 3, c); err != nil {
				t.Fatal(err)
			}
		case 8:
			landed4 = c
		case 10:
			readStep = c
		}
		if i == 8 {
			continue // pushed with the next commit: its run measures both
		}
		measureTracked(t, svc, name, c)
		if i == 7 {
			body := waitFor(3, fmt.Sprintf("Append \\(ns/op\\): confirmed on main at %.7s: -94.", landed3))
			if !regexp.MustCompile(`confirmed on main at [0-9a-f]{7}: -94\.[0-9]%`).MatchString(body) {
				t.Errorf("follow-up of pull request 3: %q", body)
			}
		}
	}
	waitFor(4, "Scan \\(ns/op\\): not seen on main after 5 commits")
	if body, _ := f.pull(4); strings.Contains(body[0], "confirmed") {
		t.Errorf("pull request 4's claim confirmed: %q", body[0])
	}
	fu, err := followUpPut(t, svc.Store(), "github:acme/store#4/comment/40")
	if err != nil || fu.Landed != landed4 || fu.LandedHow != store.LandedMessage || fu.State != store.FollowUpPosted {
		t.Errorf("follow-up of pull request 4: %+v, %v; want landed at %.7s by message, posted", fu, err, landed4)
	}
	fu, err = svc.Store().GetFollowUp(ctx, "github:acme/store#3/comment/30")
	if err != nil || fu.Landed != landed3 || fu.LandedHow != store.LandedMerged {
		t.Errorf("follow-up of pull request 3: %+v, %v; want landed at %.7s by merge", fu, err, landed3)
	}

	// Change points: Append's was announced by pull request 3, Read's by
	// nobody, and only Read's reaches the list.
	time.Sleep(200 * time.Millisecond)
	cps, err := svc.Store().ChangePoints(ctx, store.ChangePointFilter{Track: name})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, c := range cps {
		found[c.Benchmark] = c.Commit
		if c.Posted.IsZero() {
			t.Errorf("change point %s at %.7s not settled", c.Benchmark, c.Commit)
		}
	}
	if found["Append"] != landed3 || found["Read"] != readStep || len(cps) != 2 {
		t.Fatalf("change points %v, want Append at %.7s and Read at %.7s", found, landed3, readStep)
	}
	announced := list.List()
	if len(announced) != 1 || !strings.Contains(announced[0], "Read") {
		t.Errorf("announcements %q, want Read's alone", announced)
	}

	// A restart and another commit edit nothing again.
	servicetest.WaitAnswered(t, svc.Store(), "github:acme/store#3/comment/30")
	servicetest.WaitAnswered(t, svc.Store(), "github:acme/store#4/comment/40")
	before3, edits3 := f.pull(3)
	before4, edits4 := f.pull(4)
	stop()
	svc, stop = start()
	defer stop()
	measureTracked(t, svc, name, commit("commit 16", 16))
	time.Sleep(300 * time.Millisecond)
	after3, e3 := f.pull(3)
	after4, e4 := f.pull(4)
	if e3 != edits3 || e4 != edits4 || after3[0] != before3[0] || after4[0] != before4[0] {
		t.Errorf("after a restart: %d and %d edits, want %d and %d", e3, e4, edits3, edits4)
	}
	if n := strings.Count(after3[0], "Follow-up after merge"); n != 1 {
		t.Errorf("pull request 3's answer has %d follow-ups", n)
	}
	if got := list.List(); len(got) != 1 {
		t.Errorf("announcements after a restart %q", got)
	}
}
