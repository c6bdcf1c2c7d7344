package mail

import (
	"fmt"
	"sort"
	"strings"
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
}

// Key is the job key of the series.
func (s *Series) Key() string { return fmt.Sprintf("mail:%s/v%d", s.Root, s.Version) }

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
	type group struct {
		root    string
		version int
		total   int
		cover   *Message
		parts   map[int]*Message
		subject Subject
	}
	groups := map[string]*group{}
	var order []string
	for _, m := range msgs {
		sub, ok := ParseSubject(m.Subject)
		if !ok {
			continue
		}
		root := m.root()
		if sub.Index == 0 || (sub.Index == 1 && m.InReplyTo == "" && len(m.References) == 0) {
			root = m.ID
		}
		k := fmt.Sprintf("%s\x00%d\x00%d", root, sub.Version, sub.Total)
		g := groups[k]
		if g == nil {
			g = &group{root: root, version: sub.Version, total: sub.Total, parts: map[int]*Message{}}
			groups[k] = g
			order = append(order, k)
		}
		if sub.Index == 0 {
			g.cover, g.subject = m, sub
		} else if _, dup := g.parts[sub.Index]; !dup {
			g.parts[sub.Index] = m
			if sub.Index == 1 && g.cover == nil {
				g.subject = sub
			}
		}
	}
	var out []*Series
	for _, k := range order {
		g := groups[k]
		if len(g.parts) != g.total {
			continue
		}
		s := &Series{Root: g.root, Version: g.version, Cover: g.cover, Subject: g.subject}
		for i := 1; i <= g.total; i++ {
			s.Patches = append(s.Patches, g.parts[i])
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Patches[0].Date.Before(out[j].Patches[0].Date) })
	return out
}
