package store

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteAnswers prints answers of the outbox as an indented table (what
// perfbot status lists) and returns how many were given up.
func WriteAnswers(w io.Writer, answers []Answer) (failed int, err error) {
	if len(answers) == 0 {
		return 0, nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  DELIVERY\tSTATE\tTARGET\tKEY\tTRIES\tWAITING SINCE\tNEXT TRY\tLAST ERROR")
	for _, a := range answers {
		next := "-"
		if a.Status == OutboxPending {
			next = a.NextAt.Format(time.RFC3339)
		}
		if a.Status == OutboxFailed {
			failed++
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", a.Status, a.State, a.Target, a.Key, a.Attempts,
			a.Since.Format(time.RFC3339), next, oneLine(a.LastError, 200))
	}
	return failed, tw.Flush()
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
