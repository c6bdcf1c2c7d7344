package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/parse"
	"github.com/perfbot/perfbot/provenance"
)

// reportCmd implements "perfbot report": it compares result files already
// on disk, the first as the baseline, like benchstat.
func reportCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", stderr)
	format := fs.String("format", "text", "output format: text, markdown, jira or json")
	inFormat := fs.String("input-format", "auto", "format of the input files (auto detects it)")
	outDir := fs.String("out", "", "also write every rendering into this directory")
	alpha := fs.Float64("alpha", config.DefaultAlpha, "significance level")
	floor := fs.Float64("noise-floor", config.DefaultNoiseFloorPct, "percent: a row without a significant change is same only when its change's interval rules out changes this large, else noisy")
	method := fs.String("method", "perfbot", "verdict method: perfbot (tests by data kind, false-discovery control) or benchstat (Mann-Whitney per row, as benchstat)")
	var posts multiFlag
	fs.Var(&posts, "post", "post the report: github:OWNER/REPO#N, gitlab:GROUP/PROJECT!N, jira:KEY-123, reviewboard:ID, gerrit:CHANGE[/PS] or mail:ADDRESS[,ADDRESS][?cc=ADDRESS] (repeatable)")
	key := fs.String("key", "", "stable key of the answer, so a rerun edits it (default: derived from the --post targets)")
	configFile := fs.String("config", "", "config file whose venues section says where and how to post")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: perfbot report [flags] BASE_FILE CANDIDATE_FILE...\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	targets, err := postTargets(posts)
	if err != nil {
		return err
	}
	var cfg *config.Config
	if *configFile != "" {
		if cfg, err = loadConfig(*configFile); err != nil {
			return err
		}
	}
	files := fs.Args()
	if len(files) < 2 {
		return usagef("report needs a baseline file and at least one candidate file")
	}
	names := variantNames(files)
	m, err := verdictMethod(*method)
	if err != nil {
		return err
	}
	if !(*floor > 0) {
		return usagef("--noise-floor %v: want a positive percentage", *floor)
	}
	if os.Getenv("GOGC") == "" {
		// The comparison of a large suite is one long-lived structure
		// built in one go: collecting at half the default growth keeps
		// the peak near what is live, for little CPU.
		defer debug.SetGCPercent(debug.SetGCPercent(50))
	}
	// Results stream from each file into a collector of its own, which
	// keeps only each benchmark's samples: memory grows with the number
	// of benchmarks, not with the size of the files. The files are read
	// at once, then merged in their order.
	opts := compare.Options{Base: names[0], Candidates: names[1:], Alpha: *alpha, NoiseFloorPct: *floor, Verdicts: compare.VerdictOptions{Method: m}}
	colls := make([]*compare.Collector, len(files))
	for i := range files {
		if colls[i], err = compare.NewCollector(opts); err != nil {
			return err
		}
	}
	// Values a parser dropped or doubted are listed on stderr as they
	// come, and the first few of each file in the report, so its reader
	// knows the figures miss them.
	var mu sync.Mutex
	fileWarnings := make([][]string, len(files))
	dropped := 0
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		fctx := parse.WithWarnings(ctx, func(w *parse.SyntaxError) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(stderr, "warning: %v\n", w)
			if len(fileWarnings[i]) < maxReportWarnings {
				fileWarnings[i] = append(fileWarnings[i], w.Error())
			} else {
				dropped++
			}
		})
		wg.Go(func() {
			errs[i] = streamFile(fctx, f, *inFormat, func(r *bench.Result) error {
				r.Variant = names[i]
				return colls[i].Add(r)
			})
		})
	}
	wg.Wait()
	var prov provenance.Record
	var warnings []string
	for i, f := range files {
		if errs[i] != nil {
			return errs[i]
		}
		for _, w := range fileWarnings[i] {
			if len(warnings) < maxReportWarnings {
				warnings = append(warnings, w)
			} else {
				dropped++
			}
		}
		prov.Sides = append(prov.Sides, provenance.Side{Variant: names[i], Files: []string{f}})
	}
	coll := colls[0]
	for _, c := range colls[1:] {
		if err := coll.Merge(c); err != nil {
			return err
		}
	}
	cmp, err := coll.Compare()
	if err != nil {
		return err
	}
	cmp.Provenance = prov
	if dropped > 0 {
		warnings = append(warnings, fmt.Sprintf("%d more warnings about the input (see stderr)", dropped))
	}
	cmp.Warnings = append(cmp.Warnings, warnings...)
	if err := emit(cmp, *format, *outDir, stdout); err != nil {
		return err
	}
	k := *key
	if k == "" {
		k = answerKey(targets, nil)
	}
	return postAll(ctx, cmp, nil, targets, k, cfg, "", "", stderr)
}

// maxReportWarnings bounds the parser warnings a report lists.
const maxReportWarnings = 10

// variantNames labels files by their base names, or by their full paths
// when base names collide, as benchstat does.
func variantNames(files []string) []string {
	names := make([]string, len(files))
	seen := map[string]int{}
	for i, f := range files {
		names[i] = filepath.Base(f)
		seen[names[i]]++
	}
	for i, f := range files {
		if seen[names[i]] > 1 {
			names[i] = f
		}
	}
	return names
}

// verdictMethod checks a --method value.
func verdictMethod(s string) (compare.Method, error) {
	switch m := compare.Method(s); m {
	case compare.MethodPerfbot, compare.MethodBenchstat:
		return m, nil
	}
	return "", usagef("--method %q: want perfbot or benchstat", s)
}

// streamFile streams one file's results into emit, which must copy what
// it keeps (see parse.Stream).
func streamFile(ctx context.Context, path, format string, emit func(*bench.Result) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return parse.Stream(ctx, f, path, format, emit)
}
