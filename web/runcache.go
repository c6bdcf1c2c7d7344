package web

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/store"
)

// runCacheSize is how many finished runs' comparisons are kept read: a
// comparison of 10,000 rows takes a second to decode and lay out, and a
// finished run's comparison no longer changes.
const runCacheSize = 8

// readRun is a run's comparison as its pages use it: decoded, laid out
// for the page and encoded for the API, each done once on first need.
type readRun struct {
	finished time.Time
	cmp      *compare.Comparison
	summary  string
	notes    []string

	mu   sync.Mutex
	doc  *report.Document
	json []byte
}

// document is the comparison laid out; callers must not change it.
func (e *readRun) document() *report.Document {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.doc == nil {
		e.doc = report.Build(e.cmp, report.Options{})
	}
	return e.doc
}

// encoded is the comparison in the JSON contract of perfbot compare
// --format json.
func (e *readRun) encoded() ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.json == nil {
		var b bytes.Buffer
		if err := report.JSON(&b, e.cmp); err != nil {
			return nil, err
		}
		e.json = bytes.TrimSpace(b.Bytes())
	}
	return e.json, nil
}

// comparisonOf reads run's comparison, from the cache when the run is
// finished and was read since it finished. It returns store.ErrNotFound
// when the run has none.
func (s *Server) comparisonOf(ctx context.Context, run *store.Run) (*readRun, error) {
	cacheable := run.Status == store.StatusDone && !run.Finished.IsZero()
	if cacheable {
		s.mu.Lock()
		e, ok := s.runs[run.ID]
		s.mu.Unlock()
		if ok && e.finished.Equal(run.Finished) {
			return e, nil
		}
	}
	cmp, err := s.st.Comparison(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	e := &readRun{finished: run.Finished, cmp: cmp, summary: report.SummaryLine(cmp), notes: notes(cmp)}
	if !cacheable {
		return e, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.runs[run.ID]; !ok {
		s.runOrder = append(s.runOrder, run.ID)
		if len(s.runOrder) > runCacheSize {
			delete(s.runs, s.runOrder[0])
			s.runOrder = s.runOrder[1:]
		}
	}
	s.runs[run.ID] = e
	return e, nil
}
