package service

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/perfbot/perfbot/falsealarm"
	mailintake "github.com/perfbot/perfbot/intake/mail"
	"github.com/perfbot/perfbot/store"
)

// MarkFalseAlarmInThread records a reviewer's marks of the verdicts of
// benches in the latest finished run of the mailed series rooted at one
// of thread's Message-IDs (a reply's References and In-Reply-To) as false
// alarms, by who (the sender's address), and returns the reply that
// acknowledges them or says why nothing was marked. It is
// mailintake.ThreadMarker: a mail run's target names the list and the
// author, shared by all their threads, so a thread is found by its
// series' job key instead.
func (s *Service) MarkFalseAlarmInThread(ctx context.Context, thread []string, who string, benches []string, reason string) (string, error) {
	var run *store.Run
	for _, id := range thread {
		r, err := s.st.LastDoneRun(ctx, mailintake.SeriesKeyPrefix(id))
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return "", err
		}
		if root, ok := mailintake.SeriesRoot(r.JobKey); !ok || root != id {
			continue
		}
		if run == nil || r.Finished.After(run.Finished) || (r.Finished.Equal(run.Finished) && r.ID > run.ID) {
			run = r
		}
	}
	if run == nil {
		return "there is no finished benchmark run in this thread to mark.", nil
	}
	marks, err := falsealarm.Mark(ctx, s.st, falsealarm.Request{Run: run, Benches: benches, By: who, Venue: "mail", Reason: reason})
	if reqErr, ok := errors.AsType[*falsealarm.RequestError](err); ok {
		return "nothing marked: " + reqErr.Error(), nil
	}
	if err != nil {
		return "", err
	}
	s.log.Info("false alarm marked", "run", run.ID, "key", run.JobKey, "by", who, "marks", len(marks))
	var b strings.Builder
	fmt.Fprintln(&b, falsealarm.Summary(marks, run.ID))
	for _, l := range falsealarm.Describe(marks) {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	return b.String(), nil
}
