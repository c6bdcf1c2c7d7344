// Package benchfiles compares benchmark result files already on disk, the
// first as the baseline, as benchstat does ("perfbot report").
package benchfiles

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/parse"
	"github.com/perfbot/perfbot/provenance"
)

// MaxWarnings bounds the parser warnings a comparison lists.
const MaxWarnings = 10

// Options say how files are read and compared.
type Options struct {
	// Compare are the comparison's options; its Base and Candidates are
	// the files' names (VariantNames).
	Compare compare.Options
	// Format is the files' format, or "auto" to detect it.
	Format string
	// Warn, when set, is called with each value a parser dropped or
	// doubted, one call at a time.
	Warn func(*parse.SyntaxError)
}

// Compare compares the results of files, the first as the baseline. The
// results stream from each file into a collector of its own, which keeps
// only each benchmark's samples: memory grows with the number of
// benchmarks, not with the size of the files. The files are read at once,
// then merged in their order. The first MaxWarnings parser warnings are
// listed in the comparison, so its reader knows the figures miss them.
func Compare(ctx context.Context, files []string, opts Options) (*compare.Comparison, error) {
	names := VariantNames(files)
	copts := opts.Compare
	copts.Base, copts.Candidates = names[0], names[1:]
	colls := make([]*compare.Collector, len(files))
	for i := range files {
		var err error
		if colls[i], err = compare.NewCollector(copts); err != nil {
			return nil, err
		}
	}
	var mu sync.Mutex
	fileWarnings := make([][]string, len(files))
	dropped := 0
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		fctx := parse.WithWarnings(ctx, func(w *parse.SyntaxError) {
			mu.Lock()
			defer mu.Unlock()
			if opts.Warn != nil {
				opts.Warn(w)
			}
			if len(fileWarnings[i]) < MaxWarnings {
				fileWarnings[i] = append(fileWarnings[i], w.Error())
			} else {
				dropped++
			}
		})
		wg.Go(func() {
			errs[i] = streamFile(fctx, f, opts.Format, func(r *bench.Result) error {
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
			return nil, errs[i]
		}
		for _, w := range fileWarnings[i] {
			if len(warnings) < MaxWarnings {
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
			return nil, err
		}
	}
	cmp, err := coll.Compare()
	if err != nil {
		return nil, err
	}
	cmp.Provenance = prov
	if dropped > 0 {
		warnings = append(warnings, fmt.Sprintf("%d more warnings about the input (see stderr)", dropped))
	}
	cmp.Warnings = append(cmp.Warnings, warnings...)
	return cmp, nil
}

// VariantNames labels files by their base names, or by their full paths
// when base names collide, as benchstat does.
func VariantNames(files []string) []string {
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
