package mail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/perfbot/perfbot/bot"
)

// Enqueuer queues jobs; *bot.Service is one.
type Enqueuer interface {
	Enqueue(ctx context.Context, job bot.JobSpec) (id int64, duplicate bool, err error)
}

// Tested remembers tested pairs; *store.Store is one.
type Tested interface {
	MarkTested(ctx context.Context, venue, item, revision, jobKey string) (bool, error)
	UnmarkTested(ctx context.Context, venue, item, revision string) error
}

// Source returns the mails received since a time.
type Source func(ctx context.Context, since time.Time) ([]*Message, error)

// MaildirSource reads a maildir.
func MaildirSource(dir string) Source {
	return func(ctx context.Context, since time.Time) ([]*Message, error) { return ReadMaildir(dir, since) }
}

// Poller queues each complete patch series once.
type Poller struct {
	Source Source
	Queue  Enqueuer
	Tested Tested
	// List is the mailing list the answer goes to, besides the author.
	List string
	// Window is how far back mails are read to assemble series (default
	// 14 days).
	Window time.Duration
	Log    *slog.Logger
}

// Poll reads recent mails and queues the series that became complete. It
// returns how many jobs it queued.
func (p *Poller) Poll(ctx context.Context) (int, error) {
	window := p.Window
	if window <= 0 {
		window = 14 * 24 * time.Hour
	}
	msgs, readErr := p.Source(ctx, time.Now().Add(-window))
	log := p.Log
	if log == nil {
		log = slog.Default()
	}
	queued := 0
	var errs []error
	if readErr != nil {
		errs = append(errs, readErr)
	}
	for _, s := range Assemble(msgs) {
		rev := fmt.Sprintf("v%d", s.Version)
		fresh, err := p.Tested.MarkTested(ctx, "mail", s.Root, rev, s.Key())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !fresh {
			continue
		}
		if _, _, err := p.Queue.Enqueue(ctx, p.job(s)); err != nil {
			if uerr := p.Tested.UnmarkTested(ctx, "mail", s.Root, rev); uerr != nil {
				errs = append(errs, uerr)
			}
			errs = append(errs, err)
			continue
		}
		queued++
		log.Info("mail series queued", "root", s.Root, "version", s.Version, "patches", len(s.Patches))
	}
	return queued, errors.Join(errs...)
}

// job is the benchmark job of a series: the patches as one mbox, the
// answer to the list and the author, in the thread.
func (p *Poller) job(s *Series) bot.JobSpec {
	first := s.Patches[0]
	if s.Cover != nil {
		first = s.Cover
	}
	var to []string
	if p.List != "" {
		to = append(to, p.List)
	}
	if a := first.Address(); a != "" && !strings.EqualFold(a, p.List) {
		to = append(to, a)
	}
	refs := append([]string(nil), first.References...)
	refs = append(refs, s.Root)
	title := s.Subject.Title
	if len(s.Patches) > 1 {
		title = fmt.Sprintf("%s (v%d, %d patches)", title, s.Version, len(s.Patches))
	}
	return bot.JobSpec{
		Key:        s.Key(),
		Targets:    []string{"mail:" + strings.Join(to, ",")},
		Patch:      s.Mbox(),
		Title:      title,
		Requester:  first.From,
		InReplyTo:  s.Root,
		References: dedupe(refs),
		Source:     "mail",
	}
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
