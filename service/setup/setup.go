// Package setup builds a service process from config.yaml: the child
// "perfbot job" that runs each benchmark, the posters of every venue, the
// report and digest renderings, and, for "perfbot serve", the intake of
// each configured venue (webhooks and pollers). The command line only
// parses its flags, reads the config and runs what Open returns.
package setup

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/digest"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/job/child"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/service"
	"github.com/perfbot/perfbot/venue/post"
)

// Options are what the command line sets besides the config.
type Options struct {
	// ConfigFile is config.yaml's path, handed to the child.
	ConfigFile string
	Mode       service.Mode
	Log        *slog.Logger
	// Version is perfbot's version for perfbot_build_info.
	Version string
}

// Open opens the service of a process: its store and queue, the child
// that runs its jobs, its posters, and, in ModeServe, the intake of every
// configured venue. The caller must Close the service.
func Open(ctx context.Context, cfg *config.Config, opt Options) (*service.Service, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	// The child perfbot gets none of the secrets in this environment:
	// its output is redacted here.
	sec, err := job.ReadSecrets(opt.ConfigFile, os.Environ())
	if err != nil {
		return nil, err
	}
	venues := cfg.Venues.WithEnv(os.Getenv)
	// One client per venue, built here: answers are posted through it,
	// and the intake of the same venue reads and replies through it.
	router := post.NewRouter(venues, post.Options{ServiceURL: cfg.Service.URL})
	var svc *service.Service
	deps := service.Deps{
		Benchmarker: JobCommand(exe, opt.ConfigFile, cfg, sec.Values),
		Poster:      router,
		Render:      func(cmp *compare.Comparison) answer.Answer { return Render(cmp, cfg.TemplateDir()) },
		Logger:      opt.Log,
		Version:     opt.Version,
		Digest: func(ctx context.Context, job service.DigestJob) (answer.Answer, error) {
			d, err := digest.ForPeriod(ctx, svc.Store(), cfg, job.Period, job.End)
			if err != nil {
				return answer.Answer{}, err
			}
			return d.Message(), nil
		},
	}
	svc, err = service.Open(ctx, cfg, opt.Mode, deps)
	if err != nil {
		return nil, err
	}
	if opt.Mode == service.ModeServe {
		if err := addIntakes(svc, cfg, router, opt.Log); err != nil {
			svc.Close()
			return nil, err
		}
	}
	return svc, nil
}

// JobCommand runs each job as a child "perfbot job" (see package job for
// why a child), which hands back the whole outcome, samples and profiles
// included, and its progress. The child gets the store's DSN, whose noise
// thresholds (perfbot calibrate) its verdicts apply, in a variable of its
// own, off its command line; the secrets of this process are redacted from
// its output.
func JobCommand(exe, cfgFile string, cfg *config.Config, secrets []string) *child.Command {
	argv := []string{exe, "job", "--config", cfgFile, "--spec", "{spec}"}
	var env []string
	if db := cfg.StoreDSN(); db != "" {
		argv = append(argv, "--db-env", noiseDBEnv, "--driver", cfg.Store.Driver)
		env = append(env, noiseDBEnv+"="+db)
	}
	// Exit status 2 is a request that cannot be done as asked (a patch
	// that does not apply, a suite the config lacks): an answer, not a
	// retry.
	return &child.Command{Argv: argv, Env: env, Secrets: secrets, Answered: map[int]string{2: "setup"}}
}

var _ service.FileBenchmarker = (*child.Command)(nil)

// noiseDBEnv carries the store's DSN to the child, off its command line.
const noiseDBEnv = "PERFBOT_NOISE_DB"

// Render renders a comparison with the report templates, falling back to
// the summary when they fail.
func Render(cmp *compare.Comparison, templateDir string) answer.Answer {
	msg, err := report.Message(cmp, report.Options{Limits: post.Limits(), TemplateDir: templateDir})
	if err != nil {
		msg = service.RenderSummary(cmp)
		t := msg.Renderings[answer.Text]
		t.Full += "\n(the full report could not be rendered: " + err.Error() + ")\n"
		msg.Set(answer.Text, t)
	}
	return msg
}

// readSecret reads a secret of the config, naming the setting when its
// file cannot be read.
func readSecret(s config.Secret) (string, error) {
	v, err := s.Read(config.Env{})
	if err != nil {
		return "", fmt.Errorf("%s: %w", s.Key, err)
	}
	return v, nil
}
