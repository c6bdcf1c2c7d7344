// Package mail reads patches sent to a mailing list, from a maildir or an
// IMAP mailbox, assembles each "[PATCH vN m/n]" series from its thread, and
// queues a benchmark job once every part has arrived. The answer is sent
// to the thread: In-Reply-To the cover letter, or the first patch when the
// series has none.
package mail

import (
	"regexp"
	"strconv"
	"strings"
)

// Subject is what a patch mail's subject says about its place in a series.
type Subject struct {
	// Version is the series version (vN), 1 when unstated.
	Version int
	// Index and Total are m and n of "m/n"; 1 and 1 for a lone patch.
	// Index 0 is the cover letter.
	Index, Total int
	// Title is the subject after the bracket.
	Title string
}

var (
	bracket = regexp.MustCompile(`^\s*\[([^\]]*)\]\s*(.*)$`)
	counter = regexp.MustCompile(`^(\d+)/(\d+)$`)
	version = regexp.MustCompile(`^[vV](\d+)$`)
)

// ParseSubject parses a "[PATCH ...]" subject. ok is false for subjects
// that are not patches, including replies ("Re: [PATCH ...]").
func ParseSubject(s string) (sub Subject, ok bool) {
	m := bracket.FindStringSubmatch(s)
	if m == nil {
		return Subject{}, false
	}
	sub = Subject{Version: 1, Index: 1, Total: 1, Title: strings.TrimSpace(m[2])}
	isPatch := false
	for _, tok := range strings.Fields(m[1]) {
		switch {
		case strings.EqualFold(tok, "PATCH"):
			isPatch = true
		case version.MatchString(tok):
			sub.Version, _ = strconv.Atoi(tok[1:])
		case counter.MatchString(tok):
			c := counter.FindStringSubmatch(tok)
			sub.Index, _ = strconv.Atoi(c[1])
			sub.Total, _ = strconv.Atoi(c[2])
		}
	}
	if !isPatch || sub.Total < 1 || sub.Index > sub.Total || sub.Version < 1 {
		return Subject{}, false
	}
	return sub, true
}
