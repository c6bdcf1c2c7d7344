// Package digest summarizes a period of the history for a mailing list:
// what got better or worse on the tracked branches, with links to the
// threads of the runs that showed it, the patches measured, and a release
// candidate against the last release when both are configured.
package digest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/perfbot/perfbot/store"
)

// Options say what the digest tracks.
type Options struct {
	// Branches are the tracked branches (such as "main"); a run counts as
	// the branch's when its candidate ref is the branch.
	Branches []string
	// RC and Release, when both set, add the newest run of RC against
	// Release.
	RC, Release string
	// Title names the digest ("weekly").
	Title string
	// MailArchive, such as "https://lists.example.org/r/%s", turns the
	// Message-ID of a mail answer into a link to the list archive.
	MailArchive string
	// TemplateDir is a folder whose digest.tmpl overrides the embedded
	// one (config key templates); check it with CheckTemplate first.
	TemplateDir string
}

// Digest is one period's summary.
type Digest struct {
	// templateDir overrides the embedded digest.tmpl (Options.TemplateDir).
	templateDir string

	Title    string
	From, To time.Time
	// Branch holds the changes on tracked branches.
	Branch []Change
	// Patches are the other runs of the period: patches and pull requests.
	Patches []Patch
	// Release is the release candidate's run, when configured and found.
	Release *Patch
	// ReleaseNote says why Release is missing, when it is.
	ReleaseNote string
	// Trends are the histories of the changed benchmarks, for charts.
	Trends []Trend
}

// Change is one significant change on a tracked branch.
type Change struct {
	store.Change
	// Link is where the run's answer was posted, if anywhere.
	Link string
}

// Patch is one run with its verdict counts.
type Patch struct {
	Run           store.Run
	Better, Worse int
	Link          string
}

// Build reads the digest of [from, to) from the history.
func Build(ctx context.Context, st *store.Store, from, to time.Time, opts Options) (*Digest, error) {
	d := &Digest{Title: opts.Title, From: from, To: to, templateDir: opts.TemplateDir}
	if d.Title == "" {
		d.Title = "digest"
	}
	changes, err := st.Changes(ctx, from, to)
	if err != nil {
		return nil, err
	}
	runs, err := st.RunsFinishedBetween(ctx, from, to)
	if err != nil {
		return nil, err
	}
	links := map[string]string{}
	link := func(key string) string {
		if l, ok := links[key]; ok {
			return l
		}
		posts, err := st.PostsByKey(ctx, key)
		l := ""
		if err == nil && len(posts) > 0 {
			l = posts[0].Link
			if id, isMail := strings.CutPrefix(strings.TrimSuffix(l, ">"), "<"); isMail && opts.MailArchive != "" {
				l = fmt.Sprintf(opts.MailArchive, url.PathEscape(id))
			}
		}
		links[key] = l
		return l
	}
	tracked := func(ref string) bool {
		return slices.Contains(opts.Branches, strings.TrimPrefix(ref, "refs/heads/"))
	}
	counts := map[int64][2]int{}
	for _, c := range changes {
		n := counts[c.RunID]
		if c.Verdict == "better" {
			n[0]++
		} else {
			n[1]++
		}
		counts[c.RunID] = n
		if tracked(c.CandidateRef) {
			d.Branch = append(d.Branch, Change{Change: c, Link: link(c.JobKey)})
		}
	}
	if d.Trends, err = trends(ctx, st, d.Branch, to); err != nil {
		return nil, err
	}
	releaseKey := ReleaseKey(opts.RC, opts.Release)
	for _, r := range runs {
		if tracked(r.CandidateRef) || r.JobKey == releaseKey {
			continue
		}
		d.Patches = append(d.Patches, Patch{Run: r, Better: counts[r.ID][0], Worse: counts[r.ID][1], Link: link(r.JobKey)})
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
			p := Patch{Run: *r, Link: link(r.JobKey)}
			if cmp, err := st.Comparison(ctx, r.ID); err == nil {
				for _, t := range cmp.Summary {
					p.Better += t.Better
					p.Worse += t.Worse
				}
			}
			d.Release = &p
		}
	}
	return d, nil
}

// ReleaseKey is the job key of the run of a release candidate against the
// last release.
func ReleaseKey(rc, release string) string { return "release:" + rc + ".." + release }

// Period returns the period of the given length that ends at end.
func Period(end time.Time, length time.Duration) (from, to time.Time, err error) {
	if length <= 0 {
		return time.Time{}, time.Time{}, errors.New("digest period must be positive")
	}
	return end.Add(-length), end, nil
}
