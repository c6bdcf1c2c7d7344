// Package mail reads patches sent to a mailing list, from a maildir or an
// IMAP mailbox, assembles each "[PATCH vN m/n]" series from its thread, and
// queues a benchmark job once every part has arrived. The answer is sent
// to the thread: In-Reply-To the cover letter, or the patch itself when a
// single patch has none, with "Re: " and the exact subject of that mail.
package mail

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Subject is what a patch mail's subject says about its place in a series.
type Subject struct {
	// Version is the series version (vN), 1 when unstated.
	Version int
	// Index and Total are m and n of "m/n"; 1 and 1 for a lone patch.
	// Index 0 is the cover letter.
	Index, Total int
	// Title is the subject after the brackets.
	Title string
}

var (
	bracket = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[([^\]]*)\]\s*`) })
	counter = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)/(\d+)$`) })
	version = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[vV](\d+)$`) })
)

// ParseSubject parses a patch subject as git format-patch writes it and
// lists pass it on: "[PATCH] x", "[PATCH v7 0/3] x", "[RFC PATCH] x",
// "[PATCH net-next v2 1/5] x", "[RFC PATCH v3 2/4] x", and any of these
// behind the tags a list puts first ("[sums-dev] [PATCH v7 0/3] x"). ok is
// false for subjects that are not patches, including replies
// ("Re: [PATCH ...]").
func ParseSubject(s string) (sub Subject, ok bool) {
	rest := s
	for {
		m := bracket().FindStringSubmatchIndex(rest)
		if m == nil {
			return Subject{}, false
		}
		tag := rest[m[2]:m[3]]
		rest = rest[m[1]:]
		sub, isPatch := parseTag(tag)
		if !isPatch {
			continue // a list's tag, such as [sums-dev]
		}
		sub.Title = strings.TrimSpace(rest)
		if sub.Total < 1 || sub.Index > sub.Total || sub.Version < 1 {
			return Subject{}, false
		}
		return sub, true
	}
}

// parseTag reads the words of one bracket: "PATCH", "RFC", a subject
// prefix such as "net-next", "vN" and "m/n".
func parseTag(tag string) (Subject, bool) {
	sub := Subject{Version: 1, Index: 1, Total: 1}
	isPatch := false
	for _, tok := range strings.Fields(tag) {
		switch {
		case strings.EqualFold(tok, "PATCH"):
			isPatch = true
		case version().MatchString(tok):
			sub.Version, _ = strconv.Atoi(tok[1:])
		case counter().MatchString(tok):
			c := counter().FindStringSubmatch(tok)
			sub.Index, _ = strconv.Atoi(c[1])
			sub.Total, _ = strconv.Atoi(c[2])
		}
	}
	return sub, isPatch
}
