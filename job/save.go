package job

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/pkgfile"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/runner"
	"github.com/perfbot/perfbot/store"
)

// ProfileFiles are CPU profiles in pprof format, named
// profile-SUITE-PKG-VARIANT.pprof.
func ProfileFiles(profiles []runner.Profile) []answer.Attachment {
	var files []answer.Attachment
	for _, p := range profiles {
		name := "profile-" + SanitizeFile(p.Suite) + "-" + pkgfile.Name(p.Package) + "-" + SanitizeFile(p.Variant) + ".pprof"
		files = append(files, answer.Attachment{Name: name, ContentType: "application/vnd.google.pprof", Data: p.Data})
	}
	return files
}

// A Saved run is what Save records besides the comparison.
type Saved struct {
	// Key is the answer's key ("cli" when empty).
	Key string
	// Venue and Target are where the answer went, if anywhere.
	Venue, Target string
	// Suites are the suites run.
	Suites []string
	// Title is the request's title; when empty, the candidate's subject
	// (CandidateSubject in Repo) names it.
	Title string
	// Repo is the local clone the run measured, or "" for a URL.
	Repo string
	// Files are stored with the run: flame graphs and profiles.
	Files []answer.Attachment
}

// Save stores a comparison made outside the service (perfbot compare
// --save) in st as a finished run, with its files, and returns the run's
// id. A comparison of nothing is stored as a failed run.
func Save(ctx context.Context, st *store.Store, cmp *compare.Comparison, s Saved) (int64, error) {
	run := &store.Run{JobKey: s.Key, Suites: strings.Join(s.Suites, " "), Worker: "cli", Started: cmp.Provenance.Started,
		Venue: s.Venue, Target: s.Target}
	if run.JobKey == "" {
		run.JobKey = "cli"
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
	run.Title = s.Title
	if run.Title == "" {
		run.Title = CandidateSubject(ctx, s.Repo, cmp)
	}
	if b, err := json.Marshal(cmp.Provenance.Host); err == nil {
		run.Host = b
	}
	if b, err := json.Marshal(cmp.Provenance); err == nil {
		run.Provenance = b
	}
	run.Status = store.StatusDone
	if !(&Outcome{Comparison: cmp}).Compared() {
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
	for _, a := range s.Files {
		arts = append(arts, store.Artifact{Name: a.Name, ContentType: a.ContentType, Data: a.Data})
	}
	if err := st.SaveArtifacts(ctx, run.ID, arts); err != nil {
		return 0, err
	}
	return run.ID, nil
}

// CandidateSubject names a comparison's first candidate: its patch's
// subject line, else the subject of its commit when repo is a local
// clone that has it; "" when neither is known.
func CandidateSubject(ctx context.Context, repo string, cmp *compare.Comparison) string {
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

// SaveTo stores cmp as Save does in the store at dsn (driver: see
// StoreDriver) and returns the run's id.
func SaveTo(ctx context.Context, driver, dsn string, cmp *compare.Comparison, s Saved) (int64, error) {
	st, err := store.Open(ctx, StoreDriver(driver, dsn), dsn)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	return Save(ctx, st, cmp, s)
}
