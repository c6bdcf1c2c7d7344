package store

import (
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/perfbot/perfbot/internal/texttable"
)

// WriteAnswers prints answers of the outbox as an indented table (what
// perfbot status lists) and returns how many were given up.
func WriteAnswers(w io.Writer, answers []Answer) (failed int, err error) {
	if len(answers) == 0 {
		return 0, nil
	}
	t := texttable.New(w, "  DELIVERY", "STATE", "TARGET", "KEY", "TRIES", "WAITING SINCE", "NEXT TRY", "LAST ERROR")
	for _, a := range answers {
		next := "-"
		if a.Status == OutboxPending {
			next = a.NextAt.Format(time.RFC3339)
		}
		if a.Status == OutboxFailed {
			failed++
		}
		t.Row("  "+a.Status, a.State, a.Target, a.Key, strconv.Itoa(a.Attempts),
			a.Since.Format(time.RFC3339), next, oneLine(a.LastError, 200))
	}
	return failed, t.Flush()
}

// oneLine joins s's lines and cuts it to n characters; "-" when empty.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	if s == "" {
		return "-"
	}
	return s
}
