package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/templates"
)

// TemplateError is a mistake in a user's template: the file, the line
// (0 when the mistake has no line) and what went wrong.
type TemplateError struct {
	File string
	Line int
	Msg  string
}

func (e *TemplateError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// CheckTemplates checks a template folder (config key templates) before
// anything is posted: every .tmpl file at its top must name an embedded
// template (one per report format, and the digest's; digest.tmpl is checked by digest.CheckTemplate),
// and every report format's templates, the embedded ones overridden by
// the folder's, must parse and render a small comparison with a sweep,
// a failure and a missing row. The errors are *TemplateError, joined.
func CheckTemplates(dir string) error {
	if dir == "" {
		return nil
	}
	var errs []error
	top, err := filepath.Glob(filepath.Join(dir, "*.tmpl"))
	if err != nil {
		return fmt.Errorf("report: template folder %s: %w", dir, err)
	}
	embedded, err := fs.Glob(templates.FS, "*.tmpl")
	if err != nil {
		return fmt.Errorf("report: embedded templates: %w", err)
	}
	for _, p := range top {
		if !slices.Contains(embedded, filepath.Base(p)) {
			errs = append(errs, &TemplateError{File: p, Msg: "no embedded template of this name (want one of " + strings.Join(embedded, ", ") + ")"})
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return &TemplateError{File: dir, Msg: "not a folder of templates"}
	}
	cmp := sampleComparison()
	for _, v := range []venue{venueMarkdown, venueReviewBoard, venueJIRA, venueText, venueHTML} {
		set, err := loadTemplates(v, dir)
		if err == nil {
			_, err = set.render(build(cmp, Options{}))
		}
		if err != nil {
			errs = append(errs, templateError(v, dir, err))
		}
	}
	return errors.Join(errs...)
}

// goTemplateErr matches the place text/template and html/template give
// in their errors: "template: NAME:LINE:" or "template: NAME:LINE:COL:".
var goTemplateErr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`template: ([^:]+):(\d+):(?:\d+:)? ?(.*)$`) })

// templateError places err in the user's file when it names one.
func templateError(v venue, dir string, err error) *TemplateError {
	msg := err.Error()
	if m := goTemplateErr().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[2])
		file := m[1]
		if !strings.HasPrefix(file, dir) {
			// the error is in an embedded template, caused by the folder
			// (a block redefined with another meaning)
			file = filepath.Join(dir, string(v)+".tmpl") + " (with the embedded " + m[1] + ")"
		}
		return &TemplateError{File: file, Line: line, Msg: strings.TrimSpace(m[3])}
	}
	return &TemplateError{File: filepath.Join(dir, string(v)+".tmpl"), Msg: msg}
}

// sampleComparison is a small comparison with each kind of row a report
// shows: a sweep of a parameter, a change from zero, a row only the
// candidate has, and a failure.
func sampleComparison() *compare.Comparison {
	cmp := &compare.Comparison{Base: "base", Candidates: []string{"patch"}}
	cell := func(v float64) compare.Cell {
		return compare.Cell{Center: v, Lo: v * 0.99, Hi: v * 1.01, N: 10, Samples: []float64{v}}
	}
	for i, threads := range []string{"1", "2", "4"} {
		base := cell(1000)
		c := compare.Candidate{Variant: "patch", Cell: cell(1000 - 100*float64(i)), P: 0.001, Alpha: 0.05,
			Verdict: compare.Better, Significant: i > 0, Test: compare.TestMannWhitney, Presence: compare.Both}
		if i == 0 {
			c.Verdict, c.P = compare.Same, 0.5
		}
		c.Ratio = c.Center / base.Center
		c.DeltaPct = (c.Ratio - 1) * 100
		cmp.Rows = append(cmp.Rows, compare.Row{Benchmark: "BenchmarkAppend", Group: "example.org/store",
			Params: bench.Params{{Name: "threads", Value: threads}}, Unit: "ns/op", Better: bench.LowerIsBetter,
			Base: &base, Candidates: []compare.Candidate{c}})
	}
	zero := cell(0)
	cmp.Rows = append(cmp.Rows, compare.Row{Benchmark: "BenchmarkAppend", Group: "example.org/store", Unit: "allocs/op",
		Better: bench.LowerIsBetter, Base: &zero, Candidates: []compare.Candidate{{Variant: "patch", Cell: cell(1),
			P: 0.001, Alpha: 0.05, Verdict: compare.Worse, Significant: true, Presence: compare.Both}}})
	cmp.Rows = append(cmp.Rows, compare.Row{Benchmark: "BenchmarkNew", Group: "example.org/store", Unit: "ns/op",
		Better: bench.LowerIsBetter, Candidates: []compare.Candidate{{Variant: "patch", Cell: cell(50), Presence: compare.Added}}})
	cmp.Summary = []compare.Tally{{Variant: "patch", Better: 2, Worse: 1, Same: 1, Added: 1}}
	cmp.Failures = []provenance.Failure{{Variant: "patch", Stage: "bench", Message: "BenchmarkOld: exit status 2"}}
	return cmp
}

// DigestTemplateError places an error of digest.CheckTemplate in dir's
// digest.tmpl, at its line when the error gives one.
func DigestTemplateError(dir string, err error) *TemplateError {
	return templateError(venue("digest"), dir, err)
}
