package track

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/store"
)

func key(name string) store.SeriesKey {
	return store.SeriesKey{Benchmark: name, Params: "{}", Unit: "ns/op"}
}

// TestFollowUp decides claims over the runs after a landing: confirmed by
// the first run with the same significant direction, retracted after the
// window, undecided before.
func TestFollowUp(t *testing.T) {
	claims := []store.Verdict{{Key: key("Append"), DeltaPct: -95, Verdict: "better"},
		{Key: key("Scan"), DeltaPct: 12, Verdict: "worse"}}
	run := func(c string, vs ...store.Verdict) PostRun { return PostRun{Commit: c, Verdicts: vs} }
	same := func(name string) store.Verdict { return store.Verdict{Key: key(name), Verdict: "same"} }
	for _, tc := range []struct {
		name   string
		runs   []PostRun
		window int
		want   []string
	}{
		{"none yet", nil, 5, nil},
		{"one confirmed, one waiting", []PostRun{run("abcdef0123", store.Verdict{Key: key("Append"), DeltaPct: -94.2, Verdict: "better"}, same("Scan"))}, 5, nil},
		{"both decided", []PostRun{
			run("abcdef0123", store.Verdict{Key: key("Append"), DeltaPct: -94.2, Verdict: "better"}, same("Scan")),
			run("1111111111", same("Append"), same("Scan")),
		}, 2, []string{"Append (ns/op)\tconfirmed on main at abcdef0: -94.2%", "Scan (ns/op)\tnot seen on main after 2 commits"}},
		{"a benchmark the track does not run", []PostRun{
			run("6666666666", same("Append")),
		}, 1, []string{"Append (ns/op)\tnot seen on main after 1 commits", "Scan (ns/op)\tnot measured on main in 1 commits"}},
		{"the other direction does not confirm", []PostRun{
			run("2222222222", store.Verdict{Key: key("Append"), DeltaPct: 30, Verdict: "worse"}, store.Verdict{Key: key("Scan"), DeltaPct: -20, Verdict: "better"}),
		}, 1, []string{"Append (ns/op)\tnot seen on main after 1 commits", "Scan (ns/op)\tnot seen on main after 1 commits"}},
		{"a later run confirms, runs past the window do not", []PostRun{
			run("3333333333", same("Append"), same("Scan")),
			run("4444444444", same("Append"), store.Verdict{Key: key("Scan"), DeltaPct: 11, Verdict: "worse"}),
			run("5555555555", store.Verdict{Key: key("Append"), DeltaPct: -90, Verdict: "better"}),
		}, 2, []string{"Append (ns/op)\tnot seen on main after 2 commits", "Scan (ns/op)\tconfirmed on main at 4444444: +11.0%"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, done := FollowUp("main", claims, tc.runs, tc.window)
			if done != (tc.want != nil) || strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("FollowUp = %q, %v; want %q", got, done, tc.want)
			}
		})
	}
}

func TestPullNumber(t *testing.T) {
	for msg, want := range map[string]int{
		"Merge pull request #12 from alice/fix\n\nFix it":  12,
		"Speed up append (#7)\n\n* squashed commits":       7,
		"Fix (#3) parsing (#41)":                           41,
		"Refs #12 in the body\n\nMerge pull request #9 of": 0,
		"Merge pull request #0 from x":                     0,
		"plain commit":                                     0,
	} {
		if got := PullNumber(msg); got != want {
			t.Errorf("PullNumber(%q) = %d, want %d", msg, got, want)
		}
	}
}

// TestLandingByPatchID: a patch mailed as git format-patch writes it has
// the patch-id of the commit that landed it on the branch, though that
// commit was applied with another message and date; a pull request is
// matched by the merge's message.
func TestLandingByPatchID(t *testing.T) {
	ctx := context.Background()
	r := gitrepo.New(t)
	base := r.Commit("base", map[string]string{"a.go": "package a\n\nfunc A() int { return 1 }\n"})
	r.Git("checkout", "-q", "-b", "topic")
	r.Commit("make A faster", map[string]string{"a.go": "package a\n\nfunc A() int { return 2 }\n"})
	mail := r.Git("format-patch", "--stdout", "-1")
	r.Git("checkout", "-q", "main")
	other := r.Commit("Merge pull request #5 from bob/other", map[string]string{"b.go": "package a\n"})
	r.Git("cherry-pick", "topic")
	r.Git("commit", "-q", "--amend", "-m", "a: A returns 2 (applied from the list)")
	landed := r.Git("rev-parse", "HEAD")
	r.Commit("unrelated", map[string]string{"c.go": "package a\n"})

	mailed, err := PatchID(ctx, []byte(mail))
	if err != nil || len(mailed) != 40 {
		t.Fatalf("PatchID(mail) = %q, %v", mailed, err)
	}
	commits, err := Commits(ctx, r.Dir, base, "main")
	if err != nil || len(commits) != 3 {
		t.Fatalf("Commits = %+v, %v", commits, err)
	}
	open := []store.FollowUp{
		{Key: "mail:<p1@example.org>", Venue: "mail", PatchID: mailed},
		{Key: "github:acme/store#5/comment/1", Venue: "github", Target: "acme/store#5"},
		{Key: "github:acme/store#6/comment/1", Venue: "github", Target: "acme/store#6"},
	}
	got := MatchLandings(open, commits, func(f store.FollowUp) int {
		if strings.HasSuffix(f.Target, "#5") {
			return 5
		}
		if strings.HasSuffix(f.Target, "#6") {
			return 6
		}
		return 0
	})
	if got["mail:<p1@example.org>"] != [2]string{landed, store.LandedPatchID} ||
		got["github:acme/store#5/comment/1"] != [2]string{other, store.LandedMessage} || len(got) != 2 {
		t.Errorf("MatchLandings = %v; want the mail at %.7s by patch-id and #5 at %.7s by message", got, landed, other)
	}
	if !IsAncestor(ctx, r.Dir, other, landed) || IsAncestor(ctx, r.Dir, landed, other) || IsAncestor(ctx, r.Dir, "--all", landed) {
		t.Error("IsAncestor")
	}
	if _, err := Commits(ctx, r.Dir, "--output=/tmp/x", "main"); err == nil {
		t.Error("Commits took an option as a revision")
	}
}

// TestWithFollowUp: the lines are appended to every rendering, the
// benchmark's name escaped for each, and an answer that has them is known.
func TestWithFollowUp(t *testing.T) {
	var msg answer.Answer
	msg.Set(answer.MarkdownGFM, answer.Rendering{Full: "answer\n", Short: "short\n"})
	msg.Set(answer.JIRAWiki, answer.Rendering{Full: "answer"})
	msg.Set(answer.Text, answer.Rendering{Full: "answer"})
	msg.Set(answer.HTML, answer.Rendering{Full: "<html><body><p>answer</p></body></html>"})
	if HasFollowUp(msg) {
		t.Fatal("a plain answer has a follow-up")
	}
	params, err := json.Marshal(bench.Params{{Name: "n", Value: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	name := Label(store.SeriesKey{Benchmark: "<script>*x*", Params: string(params), Unit: "ns/op"})
	if name != "<script>*x* n=1 (ns/op)" {
		t.Errorf("Label = %q", name)
	}
	got := WithFollowUp(msg, []string{name + "\tconfirmed on main at abc1234: -94.0%"})
	md, short := got.Full(answer.MarkdownGFM), got.Short(answer.MarkdownGFM)
	if !HasFollowUp(got) || HasFollowUp(msg) || strings.Contains(md, "<script>*x*") ||
		strings.Contains(got.Full(answer.HTML), "<script>") ||
		!strings.Contains(md, "confirmed on main at abc1234: -94.0%") || !strings.HasPrefix(short, "short\n\n**Follow-up") ||
		!strings.Contains(got.Full(answer.Text), "- <script>*x* n=1 (ns/op): confirmed on main at abc1234: -94.0%") ||
		!strings.HasSuffix(got.Full(answer.HTML), "</ul></body></html>") || got.Full(answer.MarkdownRB) != "" {
		t.Errorf("WithFollowUp = %+v", got)
	}
}
