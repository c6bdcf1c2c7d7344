package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/perfbot/perfbot/benchfiles"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/doctor"
	"github.com/perfbot/perfbot/parse"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/service/setup"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/post"
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
	var posts targetsFlag
	fs.Var(&posts, "post", "post the report: github:OWNER/REPO#N, gitlab:GROUP/PROJECT!N, jira:KEY-123, reviewboard:ID, gerrit:CHANGE[/PS] or mail:ADDRESS[,ADDRESS][?cc=ADDRESS] (repeatable)")
	key := fs.String("key", "", "stable key of the answer, so a rerun edits it (default: derived from the --post targets)")
	configFile := fs.String("config", "", "config file whose venues section says where and how to post")
	setUsage(fs, stderr, "usage: perfbot report [flags] BASE_FILE CANDIDATE_FILE...\n")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	targets := []target.Target(posts)
	cfg, err := doctor.LoadConfigIf(*configFile)
	if err != nil {
		return err
	}
	files := fs.Args()
	if len(files) < 2 {
		return usagef("report needs a baseline file and at least one candidate file")
	}
	m, err := compare.ParseMethod(*method)
	if err != nil {
		return usagef("--%v", err)
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
	cmp, err := benchfiles.Compare(ctx, files, benchfiles.Options{
		Compare: compare.Options{Alpha: *alpha, NoiseFloorPct: *floor, Verdicts: compare.VerdictOptions{Method: m}},
		Format:  *inFormat,
		Warn:    func(w *parse.SyntaxError) { fmt.Fprintf(stderr, "warning: %v\n", w) },
	})
	if err != nil {
		return err
	}
	if err := report.Render(stdout, *format, cmp); err != nil {
		return err
	}
	if *outDir != "" {
		if _, err := report.WriteFiles(*outDir, cmp, report.Options{}); err != nil {
			return err
		}
	}
	k := *key
	if k == "" {
		k = post.AnswerKey(targets, nil)
	}
	if len(targets) == 0 {
		return nil
	}
	msg, err := setup.Answer(cmp, cfg, setup.AnswerOptions{Key: k})
	if err != nil {
		return err
	}
	return postAnswer(ctx, msg, targets, post.ForConfig(cfg), stderr)
}
