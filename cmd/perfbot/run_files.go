package main

import (
	"context"
	"os"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/venue"
)

// saveRun stores a comparison made on the command line (compare --save)
// in --db and returns the run's id.
func saveRun(ctx context.Context, f *compareFlags, opts job.Options, cmp *compare.Comparison, key string, targets []venue.Target, suites []string, files []answer.Attachment) (int64, error) {
	db, err := f.dsn()
	if err != nil {
		return 0, err
	}
	if db == "" {
		return 0, usagef("--save needs --db FILE|URL (or --db-env) to store the run in")
	}
	st, err := store.Open(ctx, job.StoreDriver(f.driver, db), db)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	s := job.Saved{Key: key, Suites: suites, Title: f.title, Files: files}
	if len(targets) > 0 {
		s.Venue, s.Target = targets[0].Venue, targets[0].Where
	}
	if repo := opts.RepoSource(); isDir(repo) {
		s.Repo = repo
	}
	return job.Save(ctx, st, cmp, s)
}

// isDir reports whether path is a directory.
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
