package mail

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/perfbot/perfbot/internal/gitpatch"
)

// Series is a complete patch series: every part 1..n of one version in one
// thread, and its cover letter when there is one.
type Series struct {
	// Root is the Message-ID the answer replies to: the cover letter, or
	// the first patch.
	Root    string
	Version int
	Cover   *Message
	Patches []*Message // in order 1..n
	Subject Subject    // of the cover letter or first patch
	// Total is n; Missing lists the parts not yet received (partial
	// series only).
	Total   int
	Missing []int
}

// RootMail is the mail an answer replies to: the cover letter, else the
// first patch (nil when a partial series lacks both).
func (s *Series) RootMail() *Message {
	if s.Cover != nil {
		return s.Cover
	}
	if len(s.Patches) > 0 && s.Patches[0].ID == s.Root {
		return s.Patches[0]
	}
	return nil
}

// BaseCommit is the base-commit a series' cover letter names (git
// format-patch --base --cover-letter writes it there), as written: the
// job refuses a value that is not a commit hash. A series without a cover
// letter carries it in its first patch, which the job reads itself.
func (s *Series) BaseCommit() string {
	if s.Cover == nil {
		return ""
	}
	sha, err := gitpatch.BaseCommit([]byte(s.Cover.Body), "cover letter")
	var bad *gitpatch.BaseCommitError
	if errors.As(err, &bad) {
		return bad.Value
	}
	return sha
}

// mails are the cover letter, if any, then the patches.
func (s *Series) mails() []*Message {
	if s.Cover == nil {
		return s.Patches
	}
	return append([]*Message{s.Cover}, s.Patches...)
}

// unload drops the text of the mails Load read whole.
func (s *Series) unload() {
	for _, m := range s.mails() {
		m.unload()
	}
}

// Key is the job key of the series.
func (s *Series) Key() string { return SeriesKey(s.Root, s.Version) }

// Mbox joins the patches in order as an mbox that "git am" applies.
func (s *Series) Mbox() string {
	var b strings.Builder
	for _, p := range s.Patches {
		b.WriteString("From perfbot Mon Sep 17 00:00:00 2001\n")
		raw := strings.ReplaceAll(string(p.Raw), "\r\n", "\n")
		b.WriteString(raw)
		if !strings.HasSuffix(raw, "\n") {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Assemble groups patch mails into series by thread and version, and
// returns the complete ones (all parts present), oldest first. Partial
// series are left for a later call, when the missing parts have come.
func Assemble(msgs []*Message) []*Series {
	complete, _ := AssembleAll(msgs)
	return complete
}

// AssembleAll is Assemble that also returns the partial series, each with
// the parts that have come (Patches in order, with gaps left out) and the
// numbers of those missing.
//
// A series is rooted at its cover letter, or at its first patch when it
// has none. Each version is its own series even when it is sent into the
// thread of the one before (git send-email --in-reply-to=<v1 cover>): a
// patch belongs to the nearest cover letter (or first patch) of the same
// version and length among its ancestors, found through In-Reply-To and
// References.
func AssembleAll(msgs []*Message) (complete, partial []*Series) {
	type group struct {
		root    string
		version int
		total   int
		cover   *Message
		parts   map[int]*Message
		subject Subject
	}
	subjects := map[string]Subject{}
	for _, m := range msgs {
		if sub, ok := ParseSubject(m.Subject); ok {
			subjects[m.ID] = sub
		}
	}
	groups := map[string]*group{}
	var order []string
	for _, m := range msgs {
		sub, ok := subjects[m.ID]
		if !ok {
			continue
		}
		root := seriesRoot(m, sub, subjects)
		k := fmt.Sprintf("%s\x00%d\x00%d", root, sub.Version, sub.Total)
		g := groups[k]
		if g == nil {
			g = &group{root: root, version: sub.Version, total: sub.Total, parts: map[int]*Message{}}
			groups[k] = g
			order = append(order, k)
		}
		if sub.Index == 0 {
			if g.cover == nil {
				g.cover, g.subject = m, sub
			}
		} else if _, dup := g.parts[sub.Index]; !dup {
			g.parts[sub.Index] = m
			if sub.Index == 1 && g.cover == nil {
				g.subject = sub
			}
		}
	}
	for _, k := range order {
		g := groups[k]
		s := &Series{Root: g.root, Version: g.version, Cover: g.cover, Subject: g.subject, Total: g.total}
		for i := 1; i <= g.total; i++ {
			if p, ok := g.parts[i]; ok {
				s.Patches = append(s.Patches, p)
			} else {
				s.Missing = append(s.Missing, i)
			}
		}
		if len(s.Missing) == 0 {
			complete = append(complete, s)
		} else {
			partial = append(partial, s)
		}
	}
	sort.SliceStable(complete, func(i, j int) bool { return complete[i].Patches[0].Date.Before(complete[j].Patches[0].Date) })
	return complete, partial
}

// seriesRoot is the Message-ID a patch mail's series is rooted at: its
// own for a cover letter; else the nearest ancestor that is the cover
// letter of the same version and length; else the nearest first patch of
// it (a series without cover, threaded under its first patch); else,
// for a later patch whose parent is not at hand, that parent (the cover
// letter, not read yet); else the mail itself.
func seriesRoot(m *Message, sub Subject, subjects map[string]Subject) string {
	if sub.Index == 0 {
		return m.ID
	}
	ancestors := append([]string(nil), m.References...)
	if m.InReplyTo != "" && (len(ancestors) == 0 || ancestors[len(ancestors)-1] != m.InReplyTo) {
		ancestors = append(ancestors, m.InReplyTo)
	}
	first := ""
	for i := len(ancestors) - 1; i >= 0; i-- {
		a := ancestors[i]
		as, known := subjects[a]
		switch {
		case !known:
			if first != "" || sub.Index == 1 {
				return orSelf(first, m.ID)
			}
			if i == len(ancestors)-1 {
				return a // the parent, not read yet: its cover letter
			}
			return m.ID
		case as.Version != sub.Version || as.Total != sub.Total:
			return orSelf(first, m.ID) // another series: stop here
		case as.Index == 0:
			return a
		case as.Index == 1:
			first = a
		}
	}
	return orSelf(first, m.ID)
}

func orSelf(id, self string) string {
	if id != "" {
		return id
	}
	return self
}
