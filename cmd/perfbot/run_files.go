package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/pkgfile"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/review"
	"github.com/perfbot/perfbot/runner"
	"github.com/perfbot/perfbot/service"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/web"
)

// profileFiles are the CPU profiles of an outcome in pprof format, named
// profile-SUITE-PKG-VARIANT.pprof.
func profileFiles(o *runner.Outcome) []answer.Attachment {
	var files []answer.Attachment
	for _, p := range o.Profiles {
		name := "profile-" + job.SanitizeFile(p.Suite) + "-" + pkgfile.Name(p.Package) + "-" + job.SanitizeFile(p.Variant) + ".pprof"
		files = append(files, answer.Attachment{Name: name, ContentType: "application/vnd.google.pprof", Data: p.Data})
	}
	return files
}

// saveRun stores a comparison made on the command line (compare --save)
// as a finished run, with its flame graphs and profiles, and returns the
// run's id.
func saveRun(ctx context.Context, f *compareFlags, cmp *compare.Comparison, key string, targets []review.Target, suites []string, files []answer.Attachment) (int64, error) {
	db, err := f.dsn()
	if err != nil {
		return 0, err
	}
	if db == "" {
		return 0, usagef("--save needs --db FILE|URL (or --db-env) to store the run in")
	}
	st, err := store.Open(ctx, storeDriver(f.driver, db), db)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	run := &store.Run{JobKey: key, Suites: strings.Join(suites, " "), Worker: "cli", Started: cmp.Provenance.Started}
	if run.JobKey == "" {
		run.JobKey = "cli"
	}
	if len(targets) > 0 {
		run.Venue, run.Target = targets[0].Venue, targets[0].Where
	}
	for _, side := range cmp.Provenance.Sides {
		switch {
		case side.Variant == cmp.Base:
			run.BaseRef, run.BaseCommit = side.Ref, side.Commit
		case run.CandidateRef == "" && run.CandidateCommit == "":
			run.CandidateRef, run.CandidateCommit, run.Patch = side.Ref, side.Commit, side.Patch
			if run.CandidateRef == "" && side.Patch != "" {
				run.CandidateRef = side.Ref
			}
		}
	}
	run.Title = f.title
	if run.Title == "" {
		run.Title = candidateSubject(ctx, f.repoDir(), cmp)
	}
	if b, err := json.Marshal(cmp.Provenance.Host); err == nil {
		run.Host = b
	}
	if b, err := json.Marshal(cmp.Provenance); err == nil {
		run.Provenance = b
	}
	run.Status = store.StatusDone
	if !compared(cmp) {
		run.Status, run.Error = store.StatusFailed, "nothing could be compared"
	}
	if _, err := st.RecordRun(ctx, run); err != nil {
		return 0, err
	}
	stored, err := report.Storable(cmp)
	if err != nil {
		return 0, err
	}
	if err := st.SaveComparison(ctx, run.ID, stored); err != nil {
		run.Status, run.Error = store.StatusFailed, "the comparison could not be stored: "+err.Error()
		if ferr := st.FinishRun(ctx, run); ferr != nil {
			return 0, errors.Join(err, ferr)
		}
		return 0, err
	}
	var arts []store.Artifact
	for _, a := range files {
		arts = append(arts, store.Artifact{Name: a.Name, ContentType: a.ContentType, Data: a.Data})
	}
	if err := st.SaveArtifacts(ctx, run.ID, arts); err != nil {
		return 0, err
	}
	return run.ID, nil
}

// candidateSubject names a comparison's first candidate: its patch's
// subject line, else the subject of its commit when repo is a local
// clone that has it; "" when neither is known.
func candidateSubject(ctx context.Context, repo string, cmp *compare.Comparison) string {
	for _, side := range cmp.Provenance.Sides {
		if side.Variant == cmp.Base {
			continue
		}
		if side.PatchSubject != "" {
			return strings.TrimSpace(side.PatchSubject)
		}
		if side.Commit == "" || strings.HasPrefix(side.Commit, "-") || repo == "" {
			return ""
		}
		out, err := exec.CommandContext(ctx, "git", "-C", repo, "log", "-1", "--format=%s", side.Commit, "--").Output()
		if err != nil {
			return "" // a clone URL, or a commit the local clone lacks
		}
		return strings.TrimSpace(string(out))
	}
	return ""
}

// repoDir is the local clone the flags name (--repo, else the config's
// project.repo, else the current directory), or "" when it is a URL.
func (f *compareFlags) repoDir() string {
	repo := f.repo
	if repo == "" && f.cfg != nil {
		repo = f.cfg.Project.Repo
		if repo != "" && !filepath.IsAbs(repo) && !strings.Contains(repo, "://") && f.config != "" {
			repo = filepath.Join(filepath.Dir(f.config), repo)
		}
	}
	if repo == "" {
		repo = "."
	}
	if st, err := os.Stat(repo); err != nil || !st.IsDir() {
		return ""
	}
	return repo
}

// addPages serves the history's pages and API on the service's mux and
// reads the latest runs ahead for them until ctx ends; stop ends that and
// waits for it.
func addPages(ctx context.Context, svc *service.Service, cfg *service.Config, log *slog.Logger) (stop func(), err error) {
	ws, err := web.New(svc.Store(), log.With("part", "web"))
	if err != nil {
		return nil, fmt.Errorf("pages: %w", err)
	}
	// The pages scrub host paths as the service's answers do.
	ws.SetScrub(service.NewScrubber(service.HostPaths(service.DefaultCacheDir())...).String)
	ws.SetDigests(digestPages(svc.Store(), cfg))
	ws.Register(svc)
	warm, cancel := context.WithCancel(ctx)
	var warming sync.WaitGroup
	warming.Go(func() { ws.Warm(warm) })
	return func() { cancel(); warming.Wait() }, nil
}
