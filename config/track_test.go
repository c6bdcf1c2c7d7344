package config

import (
	"errors"
	"strings"
	"testing"
)

func TestTrack(t *testing.T) {
	good := `project: {repo: ., branch: main}
suites:
  wal: {command: "run", output: stdout, parser: gobench}
track:
  alpha: 0.01
  min_change: 3
  test: permutation
  followup_commits: 3
  branches:
    - {branch: main, suites: [wal], from: v1.0, post: [mail, "github:acme/store#1"]}
    - {repo: "https://example.org/other.git", branch: release-1}
`
	c, err := Parse([]byte(good), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b := c.Track.Branches
	if len(b) != 2 || b[0].Branch != "main" || b[0].From != "v1.0" || b[0].RepoOr(c.Project.Repo) != "." ||
		b[1].RepoOr(".") != "https://example.org/other.git" || c.Track.Alpha != 0.01 || c.Track.MinChange != 3 ||
		c.Track.FollowupWindow() != 3 || (Track{}).FollowupWindow() != 5 {
		t.Errorf("decoded %+v", c.Track)
	}

	bad := `suites:
  wal: {command: "run", output: stdout, parser: gobench}
track:
  alpha: 2
  min_change: -1
  test: chi
  followup_commits: -2
  branches:
    - {suites: [wal]}
    - {branch: "a b", repo: "ftp://x/y", suites: [nope], post: [slack]}
    - {branch: main, repo: /r, from: --upload-pack=x, post: ["github:acme"]}
    - {branch: main, repo: /r}
    - {branch: dev, braanch: x}
`
	_, err = Parse([]byte(bad), "c.yaml")
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("err = %v, want Errors", err)
	}
	want := []string{
		`c.yaml:4:10: track.alpha: expected a significance level`,
		`c.yaml:5:15: track.min_change: expected a percentage`,
		`c.yaml:6:9: track.test: expected ttest or permutation, got "chi"`,
		`c.yaml:7:21: track.followup_commits: expected a number of commits from 1 to 100`,
		`c.yaml:9:7: track.branches[0]: branch is required`,
		`c.yaml:9:7: track.branches[0]: repo is required when project.repo is not set`,
		`c.yaml:10:16: track.branches[1].branch: "a b" is not a branch name`,
		`c.yaml:10:29: track.branches[1].repo: expected a http or https or ssh or git or file URL`,
		`c.yaml:10:51: track.branches[1].suites[0]: no suite "nope"`,
		`c.yaml:10:65: track.branches[1].post[0]: "slack": expected mail`,
		`c.yaml:11:38: track.branches[2].from: "--upload-pack=x" is not a revision`,
		`c.yaml:11:62: track.branches[2].post[0]: github target "acme": want OWNER/REPO#N`,
		`c.yaml:12:7: track.branches[3]: branch main of /r is tracked twice (also track.branches[2])`,
		`c.yaml:13:7: track.branches[4]: repo is required when project.repo is not set`,
		`c.yaml:13:21: track.branches[4].braanch: unknown key; did you mean branch?`,
	}
	got := errs.Error()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
	if len(errs) != len(want) {
		t.Errorf("%d errors, want %d:\n%s", len(errs), len(want), got)
	}
}
