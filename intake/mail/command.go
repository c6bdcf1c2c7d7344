package mail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-message"

	"github.com/perfbot/perfbot/intake"
	"github.com/perfbot/perfbot/intake/command"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/mail"
)

// Word starts a command in a reply: "/perfbot false-alarm BENCH...".
const Word = "/perfbot"

// ThreadMarker marks, for who, the verdicts of benches in the latest
// finished run of a mailed series as false alarms, and returns the reply
// that acknowledges them or says why nothing was marked. The series is
// any whose root is one of thread, the Message-IDs a reply names in
// In-Reply-To and References: its job key is SeriesKey(root, version).
// An error is a failure to record; *service.Service is one.
type ThreadMarker interface {
	MarkFalseAlarmInThread(ctx context.Context, thread []string, who string, benches []string, reason string) (string, error)
}

// SeriesKey is the job key of version of the series whose answer replies
// to root: "mail:ROOT/vN".
func SeriesKey(root string, version int) string { return fmt.Sprintf("mail:%s/v%d", root, version) }

// SeriesKeyPrefix is what the job keys of every version of the series
// rooted at root start with.
func SeriesKeyPrefix(root string) string { return "mail:" + root + "/v" }

var seriesKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^mail:(.+)/v[0-9]+$`) })

// SeriesRoot is the root Message-ID of a series' job key, as SeriesKey
// wrote it; ok is false for any other key (a confirmation's, a command's).
func SeriesRoot(key string) (root string, ok bool) {
	m := seriesKey().FindStringSubmatch(key)
	if m == nil || !IsMessageID(m[1]) {
		return "", false
	}
	return m[1], true
}

// commandRevision is the revision under which a reply's command is
// remembered (the item is the reply's Message-ID), so that each is acted
// on once, across polls and restarts.
const commandRevision = "false-alarm"

// thread is the Message-IDs a reply names: its References, then its
// In-Reply-To.
func thread(m *Message) []string {
	ids := append([]string(nil), m.References...)
	if m.InReplyTo != "" {
		ids = append(ids, m.InReplyTo)
	}
	return dedupe(ids)
}

// keepReplies adds the replies read to those waiting and forgets those
// received before since; it returns those waiting, oldest first.
func (p *Poller) keepReplies(msgs []*Message, since time.Time) []*Message {
	if p.replies == nil {
		p.replies = map[string]*Message{}
	}
	for _, m := range msgs {
		if _, dup := p.replies[m.ID]; !dup {
			if m.Received.IsZero() {
				m.Received = time.Now()
			}
			p.replies[m.ID] = m
		}
	}
	var all []*Message
	for id, m := range p.replies {
		if m.Received.Before(since) {
			delete(p.replies, id)
			continue
		}
		all = append(all, m)
	}
	sortMails(all)
	return all
}

// command acts on a reply once: a "/perfbot false-alarm" line of its
// text from a sender the policy lets run patches is recorded against the
// latest run of the thread's series, through Marks, and acknowledged in
// the thread. The reply is read whole only when it may hold a command:
// not an automatic mail (perfbot's own answers among them), from an
// allowed sender, not acted on before. done is false when the reply
// should be tried again at the next poll.
func (p *Poller) command(ctx context.Context, log *slog.Logger, m *Message) (done bool, err error) {
	if p.Marks == nil || m.Automatic {
		return true, nil
	}
	if d := p.Policy.Mail(m.From); !d.Allowed {
		log.Debug("mail reply not read: the sender may not give commands", "message_id", m.ID, "reason", d.Reason)
		return true, nil
	}
	if seen, ok := p.Tested.(interface {
		Tested(ctx context.Context, venue, item, revision string) (bool, error)
	}); ok {
		done, err := seen.Tested(ctx, "mail", m.ID, commandRevision)
		if err != nil || done {
			return err == nil, err
		}
	}
	if err := m.Load(ctx); err != nil {
		return false, fmt.Errorf("read mail %s: %w", m.ID, err)
	}
	text, err := PlainText(m.Raw)
	m.unload()
	if err != nil {
		log.Info("mail reply not read", "message_id", m.ID, "err", err)
		return true, nil
	}
	cmd, ok, perr := command.ParsePlain(text, Word)
	if !ok || (perr == nil && cmd.Verb != command.VerbFalseAlarm) || (perr != nil && !falseAlarmLine(text)) {
		return true, nil // no command, or one the mail intake has no use for
	}
	key := "mail:" + m.ID + "/false-alarm"
	fresh, err := p.Tested.MarkTested(ctx, "mail", m.ID, commandRevision, key)
	if err != nil || !fresh {
		return err == nil, err
	}
	who := strings.ToLower(m.Address())
	reply := ""
	if perr != nil {
		reply = perr.Error()
	} else {
		reply, err = p.Marks.MarkFalseAlarmInThread(ctx, thread(m), who, cmd.Benches, cmd.Reason)
		if err != nil {
			err = fmt.Errorf("false alarm from mail %s: %w", m.ID, err)
			if uerr := p.Tested.UnmarkTested(context.WithoutCancel(ctx), "mail", m.ID, commandRevision); uerr != nil {
				err = errors.Join(err, uerr)
			}
			return false, err
		}
		log.Info("false alarm marked", "message_id", m.ID, "by", who, "benchmarks", cmd.Benches)
	}
	// Marked (or answered): an answer that fails to send does not mark
	// again.
	if p.Poster == nil {
		return true, nil
	}
	to, cc := mail.Recipients(m.From, m.ReplyTo, m.ListPost, p.List)
	msg := intake.RefusalMessage(key, m.Subject, reply)
	msg.Summary = "false alarm"
	msg.InReplyTo, msg.References = m.ID, threadRefs(m)
	if _, err := p.Poster.Post(ctx, target.MailTo(to, cc), msg); err != nil {
		return true, fmt.Errorf("answer the false alarm of mail %s: %w", m.ID, err)
	}
	return true, nil
}

// falseAlarmLine reports whether the first command of text's own lines
// is a false-alarm (well formed or not).
func falseAlarmLine(text string) bool {
	for _, l := range command.PlainLines(text) {
		if f := strings.Fields(l); len(f) > 0 && f[0] == Word {
			return len(f) > 1 && f[1] == command.VerbFalseAlarm
		}
	}
	return false
}

// maxTextBytes bounds the text read of a reply; maxDepth how deep its
// parts are looked into (a mail client nests three levels at most).
const (
	maxTextBytes = 1 << 20
	maxDepth     = 8
)

// PlainText is the text a reader sees of a mail: its body when it is a
// single text/plain part (or has no Content-Type), else its first
// text/plain part that is not an attachment, with the transfer encoding
// (quoted-printable, base64) undone. A mail without one is an error.
func PlainText(raw []byte) (string, error) {
	e, err := message.Read(bytes.NewReader(raw))
	if err != nil && !message.IsUnknownCharset(err) {
		return "", fmt.Errorf("read mail: %w", err)
	}
	text, found := "", false
	walkErr := e.Walk(func(path []int, part *message.Entity, err error) error {
		if found {
			return nil
		}
		if len(path) > maxDepth {
			return fmt.Errorf("parts nested deeper than %d", maxDepth)
		}
		if err != nil && !message.IsUnknownCharset(err) {
			return err
		}
		if part.MultipartReader() != nil {
			return nil
		}
		ct, _, cterr := part.Header.ContentType()
		if cterr != nil || (ct != "" && ct != "text/plain") {
			return nil
		}
		if disp, _, _ := mime.ParseMediaType(part.Header.Get("Content-Disposition")); disp == "attachment" {
			return nil
		}
		b, err := io.ReadAll(io.LimitReader(part.Body, maxTextBytes))
		if err != nil {
			return fmt.Errorf("read text part: %w", err)
		}
		text, found = strings.ToValidUTF8(string(b), "\uFFFD"), true
		return nil
	})
	if walkErr != nil {
		return "", fmt.Errorf("read mail: %w", walkErr)
	}
	if !found {
		return "", errors.New("no text/plain part")
	}
	return text, nil
}
