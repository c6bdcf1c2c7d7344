package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/perfbot/perfbot/falsealarm"
	"github.com/perfbot/perfbot/store"
)

// MarkFalseAlarm records a reviewer's marks of the verdicts of benches in
// the latest finished run answered to target as false alarms (raising
// those benchmarks' thresholds on the host that ran it) and returns the
// reply that acknowledges them, or says why nothing was marked. It is
// intake.Marker.
func (s *Service) MarkFalseAlarm(ctx context.Context, target, who string, benches []string, reason string) (string, error) {
	t, err := s.normalTarget(target)
	if err != nil {
		return "", err
	}
	run, err := s.st.LatestRunOf(ctx, t.Venue, t.Where)
	if errors.Is(err, store.ErrNotFound) {
		return "there is no finished benchmark run here to mark.", nil
	}
	if err != nil {
		return "", err
	}
	marks, err := falsealarm.Mark(ctx, s.st, falsealarm.Request{Run: run, Benches: benches, By: who, Venue: t.Venue, Reason: reason})
	var reqErr *falsealarm.RequestError
	if errors.As(err, &reqErr) {
		return "nothing marked: " + reqErr.Error(), nil
	}
	if err != nil {
		return "", err
	}
	s.log.Info("false alarm marked", "target", target, "run", run.ID, "by", who, "marks", len(marks))
	var b strings.Builder
	fmt.Fprintln(&b, falsealarm.Summary(marks, run.ID))
	for _, l := range falsealarm.Describe(marks) {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	return b.String(), nil
}
