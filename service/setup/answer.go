package setup

import (
	"fmt"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/service"
	"github.com/perfbot/perfbot/venue/post"
)

// AnswerOptions say how Answer renders a comparison made on the command
// line.
type AnswerOptions struct {
	// Key is the answer's stable key in the places it is posted.
	Key string
	// CacheDir is where the run's clones and worktrees were (default:
	// service.DefaultCacheDir); the host paths under it (service.HostPaths)
	// are scrubbed from the answer.
	CacheDir string
	// RunID, when the run was stored, links the run's page under cfg's
	// service.url from every rendering.
	RunID int64
	// Extra are attachments (flame graphs) after the report's own.
	Extra []answer.Attachment
}

// Answer renders cmp for every venue, with cfg's templates (cfg may be
// nil), as perfbot compare and perfbot report post it.
func Answer(cmp *compare.Comparison, cfg *config.Config, o AnswerOptions) (answer.Answer, error) {
	if o.CacheDir == "" {
		o.CacheDir = service.DefaultCacheDir()
	}
	scrub := service.NewScrubber(service.HostPaths(o.CacheDir)...)
	msg, err := report.Message(scrub.Comparison(cmp), report.Options{Key: o.Key, Limits: post.Limits(), TemplateDir: cfg.TemplateDir()})
	if err != nil {
		return answer.Answer{}, fmt.Errorf("render the answer: %w", err)
	}
	msg = scrub.Message(msg)
	msg.Attachments = append(msg.Attachments, o.Extra...)
	var base string
	if cfg != nil {
		base = cfg.Service.URL
	}
	return report.LinkRun(msg, service.RunURL(base, o.RunID), 0), nil
}
