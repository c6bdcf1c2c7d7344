package mail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/perfbot/perfbot/bot"
	"github.com/perfbot/perfbot/review"
	"github.com/perfbot/perfbot/trigger"
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
	// Policy decides whose patches are run: the sender (From:) of every
	// mail of a series, the cover letter and each patch, must be on its
	// AllowSenders. The zero Policy runs no mailed patch.
	Policy trigger.Policy
	// Poster answers a refused series with the policy's polite reply, to
	// the sender, in the series' thread. When nil, a refusal is only
	// logged.
	Poster bot.Poster
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
		d, sender := p.decide(s)
		if !d.Allowed {
			log.Info("mail series refused", "root", s.Root, "version", s.Version, "sender", sender.From, "reason", d.Reason)
			if err := p.refuse(ctx, s, sender, d); err != nil {
				// Forget the series so that the next poll answers again.
				if uerr := p.Tested.UnmarkTested(ctx, "mail", s.Root, rev); uerr != nil {
					errs = append(errs, uerr)
				}
				errs = append(errs, err)
			}
			continue
		}
		log.Info("mail series allowed", "root", s.Root, "version", s.Version, "reason", d.Reason)
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

// decide applies the policy to every mail of a series and returns the
// first refusal and the mail it refused, else the decision on the first
// mail.
func (p *Poller) decide(s *Series) (trigger.Decision, *Message) {
	mails := s.Patches
	if s.Cover != nil {
		mails = append([]*Message{s.Cover}, mails...)
	}
	var first trigger.Decision
	for i, m := range mails {
		d := p.Policy.Mail(m.From)
		if !d.Allowed {
			return d, m
		}
		if i == 0 {
			first = d
		}
	}
	return first, mails[0]
}

// refuse answers the sender of a refused series in its thread, through
// Poster, with the policy's polite text.
func (p *Poller) refuse(ctx context.Context, s *Series, sender *Message, d trigger.Decision) error {
	if p.Poster == nil {
		return nil
	}
	addr := sender.Address()
	if addr == "" || strings.ContainsAny(addr, ", ") {
		return nil // no address to answer (the decision is logged)
	}
	first := s.Patches[0]
	if s.Cover != nil {
		first = s.Cover
	}
	to := review.Target{Venue: "mail", Where: addr}
	msg := bot.RefusalMessage(s.Key()+"/refused", first.Subject, d.Refusal)
	msg.InReplyTo, msg.References = s.Root, dedupe(append(append([]string(nil), first.References...), s.Root))
	if _, err := p.Poster.Post(ctx, to, msg); err != nil {
		return fmt.Errorf("answer refused mail series %s: %w", s.Root, err)
	}
	return nil
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
