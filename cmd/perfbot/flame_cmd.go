package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/perfbot/perfbot/flame"
	"github.com/perfbot/perfbot/job"
)

// flameCmd implements `perfbot flame [--out FILE.svg] [--title T] [--top N]
// PROFILE [CANDIDATE]`: a flame graph of one CPU profile, or a
// differential flame graph of a baseline and a candidate with the
// functions whose share of the time moved most. Profiles are pprof files
// (go test -cpuprofile) or folded stacks (async-profiler's collapsed
// output, stackcollapse-perf.pl).
func flameCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("flame", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "write the SVG here (default: standard output, and no table)")
	title := fs.String("title", "", "title of the graph (default: the file names)")
	top := fs.Int("top", 15, "with two profiles: how many functions the table of changes lists")
	setUsage(fs, stderr, "usage: perfbot flame [--out FILE.svg] [--title T] [--top N] PROFILE [CANDIDATE]\n\n"+
		"Draws a flame graph of a CPU profile, or a differential flame graph of a baseline and a candidate\n"+
		"(red: more of the time, blue: less) and prints the functions whose share moved most.\n"+
		"Profiles: pprof (go test -cpuprofile) or folded stacks (\"frame;frame;frame count\").\n\n")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fs.Usage()
		return &usageError{msg: "flame: want one profile, or a baseline and a candidate"}
	}
	profiles := make([]*flame.Profile, fs.NArg())
	for i, path := range fs.Args() {
		p, err := flame.ReadFile(path)
		if err != nil {
			return fmt.Errorf("flame: %w", err)
		}
		profiles[i] = p
	}
	root, opts := flame.Graph(profiles, fs.Args(), *title)
	if *out == "" {
		return flame.WriteSVG(stdout, root, opts)
	}
	if err := flame.WriteSVGFile(*out, root, opts); err != nil {
		return fmt.Errorf("flame: %w", err)
	}
	if len(profiles) == 2 {
		job.WriteChanges(stdout, flame.TopChanges(profiles[0], profiles[1], *top))
	}
	return nil
}
