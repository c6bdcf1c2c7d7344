package config

import (
	"fmt"
	"math"
	"strings"
)

// Track configures post-merge tracking: the branches benchmarked on every
// new commit, and how their histories are searched for change points.
type Track struct {
	// Branches are the tracked branches.
	Branches []TrackedBranch `yaml:"branches"`
	// Alpha is the change-point significance level (0: DefaultTrackAlpha).
	Alpha float64 `yaml:"alpha"`
	// MinChange is the smallest change reported, in percent (0:
	// DefaultTrackMinChangePct); a
	// benchmark's calibrated noise threshold raises it.
	MinChange float64 `yaml:"min_change"`
	// Test is the significance test: "ttest" (default) or "permutation".
	Test string `yaml:"test"`
	// FollowupCommits is how many tracked commits, from the one that
	// landed a request on, may confirm its verdicts before the answer
	// says they were not seen (0: 5).
	FollowupCommits int `yaml:"followup_commits"`
}

// FollowupWindow is FollowupCommits with its default.
func (t Track) FollowupWindow() int {
	if t.FollowupCommits <= 0 {
		return 5
	}
	return t.FollowupCommits
}

// TrackedBranch is one branch benchmarked commit by commit.
type TrackedBranch struct {
	// Repo is a local path or clone URL (default: project.repo).
	Repo string `yaml:"repo"`
	// Branch is the branch followed; required.
	Branch string `yaml:"branch"`
	// Suites are the suites run on each commit (default: all).
	Suites []string `yaml:"suites"`
	// From is the commit the history starts at: commits after it are
	// measured (default: the branch's head when tracking starts).
	From string `yaml:"from"`
	// Post lists where a new change point is announced: "mail", or
	// targets such as "mail:dev@example.org" or "github:acme/store#1".
	Post []string `yaml:"post"`
}

// RepoOr returns the branch's repository, or def when it names none.
func (b TrackedBranch) RepoOr(def string) string {
	if b.Repo != "" {
		return b.Repo
	}
	return def
}

func (c *Config) checkTrack(v *validator) {
	t := c.Track
	if t.Alpha != 0 && !(t.Alpha > 0 && t.Alpha < 1) {
		v.add("track.alpha", "expected a significance level between 0 and 1 such as 0.001, got %v", t.Alpha)
	}
	if t.MinChange < 0 || math.IsInf(t.MinChange, 0) || math.IsNaN(t.MinChange) {
		v.add("track.min_change", "expected a percentage of 0 (the default, 5) or more, got %v", t.MinChange)
	}
	oneOf(v, "track.test", t.Test, "ttest", "permutation")
	if t.FollowupCommits < 0 || t.FollowupCommits > 100 {
		v.add("track.followup_commits", "expected a number of commits from 1 to 100 (0: the default, 5), got %d", t.FollowupCommits)
	}
	seen := map[string]int{}
	for i, b := range t.Branches {
		path := fmt.Sprintf("track.branches[%d]", i)
		if strings.TrimSpace(b.Branch) == "" {
			v.add(path, "branch is required, such as main")
		} else if strings.HasPrefix(b.Branch, "-") || strings.ContainsAny(b.Branch, " \t\n:^~?*[\\") || strings.Contains(b.Branch, "..") {
			v.add(path+".branch", "%q is not a branch name", b.Branch)
		}
		repo := b.RepoOr(c.Project.Repo)
		if repo == "" {
			v.add(path, "repo is required when project.repo is not set")
		} else if strings.Contains(repo, "://") {
			checkURL(v, path+".repo", b.Repo, "http", "https", "ssh", "git", "file")
		}
		if strings.HasPrefix(b.From, "-") {
			v.add(path+".from", "%q is not a revision", b.From)
		}
		key := repo + "\x00" + b.Branch
		if j, ok := seen[key]; ok && b.Branch != "" {
			v.add(path, "branch %s of %s is tracked twice (also track.branches[%d])", b.Branch, repo, j)
		}
		seen[key] = i
		for j, name := range b.Suites {
			if _, ok := c.Suites.Lookup(name); !ok && len(c.Suites) > 0 {
				v.add(fmt.Sprintf("%s.suites[%d]", path, j), "no suite %q in suites (%s)", name, suiteNames(c.Suites))
			} else if !ok {
				v.add(fmt.Sprintf("%s.suites[%d]", path, j), "no suite %q: the file defines no suites, so every commit runs the go preset on all packages; define the suite or drop track suites", name)
			}
		}
		for j, p := range b.Post {
			checkPost(v, fmt.Sprintf("%s.post[%d]", path, j), p)
		}
	}
}
