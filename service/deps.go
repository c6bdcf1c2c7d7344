package service

import (
	"context"
	"path/filepath"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/runner"
	"github.com/perfbot/perfbot/target"
)

// Benchmarker runs one job's benchmarks and compares the sides. A failed
// build or benchmark is reported inside the comparison (Failures); an
// error means the job itself could not be done and should be retried.
type Benchmarker interface {
	// Run reports its progress to progress, which may be nil.
	Run(ctx context.Context, spec jobspec.Spec, progress job.ProgressFunc) (*compare.Comparison, error)
}

// FileBenchmarker is a Benchmarker that also returns files to keep with
// the run in the store (flame graphs, profiles), which the run's page
// shows and offers for download.
type FileBenchmarker interface {
	Benchmarker
	RunWithFiles(ctx context.Context, spec jobspec.Spec, progress job.ProgressFunc) (*compare.Comparison, []answer.Attachment, error)
}

// Poster posts an answer to a target. Posting the same Message.Key to the
// same target again edits the earlier answer. It returns a link to the
// post.
type Poster interface {
	Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error)
}

// Renderer turns a comparison into the answer for every venue.
type Renderer func(*compare.Comparison) answer.Answer

// Digester builds the digest mail for a period from the history.
type Digester func(ctx context.Context, job DigestJob) (answer.Answer, error)

// BenchmarkerFunc adapts a function to Benchmarker.
type BenchmarkerFunc func(ctx context.Context, spec jobspec.Spec, progress job.ProgressFunc) (*compare.Comparison, error)

// Run calls f.
func (f BenchmarkerFunc) Run(ctx context.Context, spec jobspec.Spec, progress job.ProgressFunc) (*compare.Comparison, error) {
	return f(ctx, spec, progress)
}

// PosterFunc adapts a function to Poster.
type PosterFunc func(ctx context.Context, to target.Target, msg answer.Answer) (string, error)

// Post calls f.
func (f PosterFunc) Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
	return f(ctx, to, msg)
}

// clones opens the cached clones jobs use (runner.OpenWorkspace, under
// DefaultCacheDir) for the tracked branches' follow-ups.
type clones struct{}

// GitDir returns the git directory of repo's cached clone, fetched.
func (clones) GitDir(ctx context.Context, repo string) (string, func(), error) {
	cache := DefaultCacheDir()
	if cache == "" {
		return "", func() {}, nil // nowhere to clone it
	}
	ws, err := runner.OpenWorkspace(ctx, repo, cache)
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(ws.Dir, "repo.git"), func() { ws.Close() }, nil
}
