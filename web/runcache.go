package web

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/store"
)

// runCacheSize is how many finished runs' comparisons are kept read, the
// least recently used dropped first: a comparison of 10,000 rows takes a
// tenth of a second to read, decode and lay out, and a finished run's
// comparison no longer changes.
const runCacheSize = 8

// readRun is a run's comparison as its pages use it: as stored, decoded,
// laid out for the page, its charts named and those asked for drawn, each
// done once on first need.
type readRun struct {
	finished time.Time
	cmp      *compare.Comparison
	// json is the comparison as stored (store.ComparisonJSON).
	json    []byte
	summary string
	notes   []string

	mu     sync.Mutex
	doc    *report.Document
	names  []string // the PNG charts, in order
	listed bool
	drawn  map[string]answer.Attachment
}

// document is the comparison laid out; callers must not change it.
func (e *readRun) document() *report.Document {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.documentLocked()
}

func (e *readRun) documentLocked() *report.Document {
	if e.doc == nil {
		e.doc = report.Build(e.cmp, report.Options{})
	}
	return e.doc
}

// chartNames names the run's PNG charts without drawing them.
func (e *readRun) chartNames(id int64) ([]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.listed {
		names, err := report.ChartNames(e.cmp, e.documentLocked())
		if err != nil {
			return nil, fmt.Errorf("charts of run %d: %w", id, err)
		}
		e.names, e.listed = names, true
	}
	return e.names, nil
}

// chart draws the run's chart named name (PNG or SVG) on first need. It
// reports false when the run has no such chart.
func (e *readRun) chart(id int64, name string) (answer.Attachment, bool, error) {
	e.mu.Lock()
	if a, ok := e.drawn[name]; ok {
		e.mu.Unlock()
		return a, true, nil
	}
	doc := e.documentLocked()
	e.mu.Unlock()
	// Drawn unlocked: the page's other charts are drawn meanwhile.
	a, ok, err := report.Chart(e.cmp, doc, name)
	if err != nil || !ok {
		if err != nil {
			err = fmt.Errorf("chart %s of run %d: %w", name, id, err)
		}
		return a, ok, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.drawn == nil {
		e.drawn = map[string]answer.Attachment{}
	}
	e.drawn[name] = a
	return a, true, nil
}

// comparisonOf reads run's comparison, from the cache when the run is
// finished and was read since it finished; a finished run being read
// meanwhile (by Warm, or a page's charts) is waited for, not read twice.
// It returns store.ErrNotFound when the run has none.
func (s *Server) comparisonOf(ctx context.Context, run *store.Run) (*readRun, error) {
	cacheable := run.Status == store.StatusDone && !run.Finished.IsZero()
	if !cacheable {
		return s.readComparison(ctx, run)
	}
	for {
		s.mu.Lock()
		e, ok := s.runs[run.ID]
		if ok && e.finished.Equal(run.Finished) {
			// The least recently used run is dropped first.
			if i := slices.Index(s.runOrder, run.ID); i >= 0 {
				s.runOrder = append(slices.Delete(s.runOrder, i, i+1), run.ID)
			}
			s.mu.Unlock()
			return e, nil
		}
		wait, busy := s.reading[run.ID]
		if !busy {
			break // s.mu stays locked
		}
		s.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	done := make(chan struct{})
	s.reading[run.ID] = done
	s.mu.Unlock()
	e, err := s.readComparison(ctx, run)
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.reading, run.ID)
	close(done)
	if err != nil {
		return nil, err
	}
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

// readComparison reads and decodes run's comparison.
func (s *Server) readComparison(ctx context.Context, run *store.Run) (*readRun, error) {
	data, err := s.st.ComparisonJSON(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	// Scrubbed as stored: the page, its charts and /api/runs/ID show no
	// host path.
	data = s.scrubBytes(data)
	cmp, err := store.DecodeComparison(data)
	if err != nil {
		return nil, fmt.Errorf("comparison of run %d: %w", run.ID, err)
	}
	return &readRun{finished: run.Finished, cmp: cmp, json: data, summary: report.SummaryLine(cmp), notes: notes(cmp)}, nil
}
