package mail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/perfbot/perfbot/intake"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/trigger"
	"github.com/perfbot/perfbot/venue/mail"
)

// Enqueuer queues jobs; *service.Service is one.
type Enqueuer = intake.Enqueuer

// Tested remembers tested pairs; *store.Store is one.
type Tested = intake.Tested

// Source returns the patch mails and the replies (mails with
// In-Reply-To or References) that arrived since it was called last (the
// first call: since the given time), each by its header at least;
// Message.Load reads one whole.
type Source func(ctx context.Context, since time.Time) ([]*Message, error)

// MaildirSource reads a maildir, with the default limits.
func MaildirSource(dir string) Source { return Maildir{Dir: dir}.Source() }

// Poller queues each complete patch series once.
type Poller struct {
	Source Source
	Queue  Enqueuer
	Tested Tested
	// List is the mailing list the answer goes to, with the author in Cc,
	// when a mail has no List-Post header (a mail with one is answered to
	// the list it names).
	List string
	// SeriesWait is how long the parts of a series are waited for after
	// its first mail (default 14 days). When it passes, the thread gets a
	// note saying which parts never came, and the series is dropped.
	// Mails are read back SeriesWait and one day more.
	SeriesWait time.Duration
	Log        *slog.Logger
	// Policy decides whose patches are run: the sender (From:) of every
	// mail of a series, the cover letter and each patch, must be on its
	// AllowSenders. The zero Policy runs no mailed patch.
	Policy trigger.Policy
	// Poster answers a refused series with the policy's polite reply, to
	// the sender, in the series' thread. When nil, a refusal is only
	// logged.
	Poster intake.Poster
	// Metrics, when set, counts requests and trigger decisions.
	Metrics intake.Metrics
	// Claims rations the refusals (see RefusalEvery); nil means Tested's
	// when it has them. Without claims no refusal is sent: a sender
	// address is the sender's word.
	Claims intake.Claims
	// RefusalEvery is the least time between two refusals to one address
	// (default DefaultRefusalEvery); RefusalsPerPeriod the most refusals
	// sent to all addresses together in that time (default
	// DefaultRefusalsPerPeriod).
	RefusalEvery      time.Duration
	RefusalsPerPeriod int

	// Marks records the "/perfbot false-alarm" commands of replies in
	// the thread of a series perfbot answered; nil reads no reply.
	Marks ThreadMarker

	mu sync.Mutex
	// mails are the patch mails of the window, by Message-ID and
	// subject, by their headers: a series is assembled across polls from what each poll
	// read new.
	mails map[string]*Message
	// replies are the replies of the window whose command could not be
	// acted on yet (a failure to record), by Message-ID.
	replies map[string]*Message
}

// DefaultRefusalEvery and DefaultRefusalsPerPeriod ration the refusals of
// mailed patches: one a day to an address, ten a day in all.
const (
	DefaultRefusalEvery      = 24 * time.Hour
	DefaultRefusalsPerPeriod = 10
)

// Poll reads recent mails, queues the series that became complete and
// acts on the commands of new replies. It returns how many jobs it
// queued.
func (p *Poller) Poll(ctx context.Context) (int, error) {
	wait := p.SeriesWait
	if wait <= 0 {
		wait = DefaultSeriesWait
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	since := now.Add(-wait - 24*time.Hour)
	msgs, readErr := p.Source(ctx, since)
	log := p.Log
	if log == nil {
		log = slog.Default()
	}
	queued := 0
	var errs []error
	if readErr != nil {
		errs = append(errs, readErr)
	}
	var patches, replies []*Message
	for _, m := range msgs {
		if _, ok := ParseSubject(m.Subject); ok {
			patches = append(patches, m)
		} else {
			replies = append(replies, m)
		}
	}
	complete, partial := AssembleAll(p.remember(patches, since))

	for _, s := range partial {
		if err := p.expire(ctx, log, s, now.Add(-wait), wait); err != nil {
			errs = append(errs, err)
		}
	}
	adm := &intake.Admitter{Queue: p.Queue, Tested: p.Tested, Poster: p.Poster, Metrics: p.Metrics, Log: log}
	for _, s := range complete {
		var sender *Message
		out, err := adm.Admit(ctx, intake.Request{
			Job:  p.job(s),
			Once: &intake.Once{Venue: "mail", Item: s.Root, Revision: fmt.Sprintf("v%d", s.Version)},
			Decide: func(context.Context) (trigger.Decision, error) {
				var d trigger.Decision
				d, sender = p.decide(s)
				return d, nil
			},
			Refuse: func(ctx context.Context, _ string) error {
				return p.refuse(ctx, log, s, sender)
			},
			Prepare: func(ctx context.Context, spec *jobspec.Spec) error {
				return p.load(ctx, s, spec)
			},
		})
		s.unload()
		if err != nil {
			errs = append(errs, fmt.Errorf("mail series %s: %w", s.Root, err))
			continue
		}
		if out == intake.Queued {
			queued++
		}
	}
	for _, m := range p.keepReplies(replies, since) {
		done, err := p.command(ctx, log, m)
		if done {
			delete(p.replies, m.ID)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return queued, errors.Join(errs...)
}

// remember adds the mails read to those of the window and forgets those
// received before since; it returns the mails of the window, oldest
// first.
func (p *Poller) remember(msgs []*Message, since time.Time) []*Message {
	if p.mails == nil {
		p.mails = map[string]*Message{}
	}
	for _, m := range msgs {
		// A mail read twice (copied into another folder) is one mail;
		// two mails that share a Message-ID are two.
		key := m.ID + "\x00" + m.Subject
		if _, dup := p.mails[key]; !dup {
			if m.Received.IsZero() {
				m.Received = time.Now()
			}
			p.mails[key] = m
		}
	}
	all := make([]*Message, 0, len(p.mails))
	for id, m := range p.mails {
		if m.Received.Before(since) {
			delete(p.mails, id)
			continue
		}
		all = append(all, m)
	}
	sortMails(all)
	return all
}

// sortMails sorts mails oldest first.
func sortMails(all []*Message) {
	slices.SortFunc(all, func(a, b *Message) int {
		if c := a.Received.Compare(b.Received); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// load reads the mails of an allowed series whole and completes its job
// with the patches and the base commit its cover letter names.
func (p *Poller) load(ctx context.Context, s *Series, spec *jobspec.Spec) error {
	for _, m := range s.mails() {
		if err := m.Load(ctx); err != nil {
			return fmt.Errorf("read mail %s: %w", m.ID, err)
		}
	}
	spec.Patch, spec.BaseCommit = s.Mbox(), s.BaseCommit()
	return nil
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

// RefusalSubject is the subject of every refusal: a sender address is
// the sender's word, so a refusal carries no text the sender chose, and
// names the mail it answers by its Message-ID, in the header alone.
const RefusalSubject = "perfbot: your patch was not benchmarked"

// RefusalText is the text of every refusal: the policy's, less the
// address it was sent from, which the sender chose.
const RefusalText = "Thank you for the patch. perfbot benchmarks patches from this list only for the senders " +
	"listed in its configuration, so it has not run this one. To have your patches benchmarked, ask the " +
	"list's maintainers to add the address you sent it from to perfbot's senders (in config.yaml, under triggers)."

// refuse answers the sender of a refused series in its thread, through
// Poster, with RefusalText (not the policy's text, which names the
// address), rationed: From: can be forged,
// so an address gets at most one refusal per RefusalEvery, and all
// addresses together at most RefusalsPerPeriod. Without Claims, nothing
// is sent.
func (p *Poller) refuse(ctx context.Context, log *slog.Logger, s *Series, sender *Message) error {
	if p.Poster == nil {
		return nil
	}
	claims := p.Claims
	if claims == nil {
		claims, _ = p.Tested.(intake.Claims)
	}
	addr := strings.ToLower(sender.Address())
	switch {
	case claims == nil:
		log.Info("mail refusal not sent: no store to ration refusals", "root", s.Root)
		return nil
	case addr == "" || len(addr) > 254 || strings.ContainsAny(addr, ", \"\r\n"):
		return nil // no address to answer (the decision is logged)
	}
	every, most := p.RefusalEvery, p.RefusalsPerPeriod
	if every <= 0 {
		every = DefaultRefusalEvery
	}
	if most <= 0 {
		most = DefaultRefusalsPerPeriod
	}
	now := time.Now()
	perAddr := "reply:refusal:mail:" + addr
	ok, err := claims.ClaimEvery(ctx, perAddr, now, every)
	if err != nil {
		return err
	}
	if !ok {
		log.Info("mail refusal not sent: this address had one lately", "root", s.Root, "address", addr, "every", every)
		p.count("address")
		return nil
	}
	slot := ""
	for i := range most {
		name := fmt.Sprintf("reply:refusal:mail:*%d", i)
		if ok, err = claims.ClaimEvery(ctx, name, now, every); err != nil || ok {
			slot = name
			break
		}
	}
	unclaim := func() {
		for _, name := range []string{perAddr, slot} {
			if name != "" {
				if err := claims.Unclaim(context.WithoutCancel(ctx), name, now); err != nil {
					log.Warn("forget the refusal that was not sent", "err", err)
				}
			}
		}
	}
	if err != nil || !ok {
		unclaim()
		if err != nil {
			return err
		}
		log.Info("mail refusal not sent: the refusals of the period are spent", "root", s.Root, "address", addr, "most", most, "every", every)
		p.count("all")
		return nil
	}
	first := s.RootMail()
	to := target.MailTo([]string{addr}, nil)
	msg := intake.RefusalMessage(s.Key()+"/refused", RefusalSubject, RefusalText)
	msg.InReplyTo, msg.References = s.Root, threadRefs(first)
	if _, err := p.Poster.Post(ctx, to, msg); err != nil {
		unclaim()
		return fmt.Errorf("answer refused mail series %s: %w", s.Root, err)
	}
	return nil
}

// count counts a refusal not sent, by the ration that held it back.
func (p *Poller) count(ration string) {
	if p.Metrics != nil {
		p.Metrics.Inc("perfbot_replies_throttled_total", "venue", "mail", "kind", "refusal:"+ration)
	}
}

// DefaultSeriesWait is how long the parts of a series are waited for.
const DefaultSeriesWait = 14 * 24 * time.Hour

// job is the benchmark job of a series (load adds the patches as one
// mbox), the
// answer in the thread, to the list with the author in Cc, under the
// exact subject of the cover letter (or the single patch) with "Re: ".
func (p *Poller) job(s *Series) jobspec.Spec {
	first := s.RootMail()
	to, cc := mail.Recipients(first.From, first.ReplyTo, first.ListPost, p.List)
	title := s.Subject.Title
	if len(s.Patches) > 1 {
		title = fmt.Sprintf("%s (v%d, %d patches)", title, s.Version, len(s.Patches))
	}
	return jobspec.Spec{
		Key:        s.Key(),
		Targets:    []target.Target{target.MailTo(to, cc)},
		Title:      title,
		Subject:    first.Subject,
		Requester:  first.From,
		InReplyTo:  s.Root,
		References: threadRefs(first),
		Source:     "mail",
	}
}

// maxRefs bounds the References of an answer; a longer chain keeps its
// root and its newest entries, as mail clients trim it.
const maxRefs = 20

// threadRefs is the References of an answer to m: m's own References,
// root first, then m itself, the parent, last.
func threadRefs(m *Message) []string {
	refs := append([]string(nil), m.References...)
	if m.InReplyTo != "" && !slices.Contains(refs, m.InReplyTo) {
		refs = append(refs, m.InReplyTo)
	}
	refs = dedupe(append(refs, m.ID))
	if len(refs) > maxRefs {
		refs = append(refs[:1], refs[len(refs)-maxRefs+1:]...)
	}
	return refs
}

// expire ends the wait for a partial series whose first mail came before
// deadline: once, it sends a note to the thread naming the parts that
// never came, to the list and the author, if the policy would have run
// the series.
func (p *Poller) expire(ctx context.Context, log *slog.Logger, s *Series, deadline time.Time, wait time.Duration) error {
	var mails []*Message
	if s.Cover != nil {
		mails = append(mails, s.Cover)
	}
	mails = append(mails, s.Patches...)
	if len(mails) == 0 {
		return nil
	}
	oldest := mails[0]
	for _, m := range mails {
		if m.Date.Before(oldest.Date) {
			oldest = m
		}
	}
	if !oldest.Date.Before(deadline) {
		return nil // still waiting
	}
	rev := fmt.Sprintf("v%d/expired", s.Version)
	fresh, err := p.Tested.MarkTested(ctx, "mail", s.Root, rev, s.Key()+"/expired")
	if err != nil || !fresh {
		return err
	}
	for _, m := range mails {
		if d := p.Policy.Mail(m.From); !d.Allowed {
			log.Info("mail series expired", "root", s.Root, "version", s.Version, "missing", s.Missing, "note", "none: sender not allowed")
			return nil
		}
	}
	first := s.RootMail()
	if first == nil {
		first = mails[0]
	}
	log.Info("mail series expired", "root", s.Root, "version", s.Version, "missing", s.Missing)
	if p.Poster == nil {
		return nil
	}
	var missing []string
	for _, i := range s.Missing {
		missing = append(missing, fmt.Sprintf("%d/%d", i, s.Total))
	}
	text := fmt.Sprintf("perfbot waited %s for the rest of this series, but patch %s never arrived, "+
		"so it has stopped waiting and will not benchmark this version. Send the complete series "+
		"again (a new version) to have it benchmarked.", waitText(wait), strings.Join(missing, ", "))
	to, cc := mail.Recipients(first.From, first.ReplyTo, first.ListPost, p.List)
	msg := intake.RefusalMessage(s.Key()+"/expired", first.Subject, text)
	msg.Summary = "not run: the series is incomplete"
	msg.InReplyTo, msg.References = first.ID, threadRefs(first)
	if _, err := p.Poster.Post(ctx, target.MailTo(to, cc), msg); err != nil {
		if uerr := p.Tested.UnmarkTested(ctx, "mail", s.Root, rev); uerr != nil {
			return errors.Join(err, uerr)
		}
		return fmt.Errorf("note on incomplete mail series %s: %w", s.Root, err)
	}
	return nil
}

// waitText says a duration in days or hours.
func waitText(d time.Duration) string {
	if d >= 48*time.Hour && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	}
	return d.Round(time.Minute).String()
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
