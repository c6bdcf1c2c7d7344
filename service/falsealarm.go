package service

import (
	"context"

	"github.com/perfbot/perfbot/falsealarm"
	"github.com/perfbot/perfbot/target"
)

// MarkFalseAlarm records a reviewer's marks of the verdicts of benches in
// the latest finished run answered to target as false alarms (raising
// those benchmarks' thresholds on the host that ran it) and returns the
// reply that acknowledges them, or says why nothing was marked. It is
// intake.Marker, for every venue whose comments perfbot reads.
func (s *Service) MarkFalseAlarm(ctx context.Context, to target.Target, who string, benches []string, reason string) (string, error) {
	t := s.normalTarget(to)
	reply, marks, err := falsealarm.MarkLatest(ctx, s.st, t.Venue, t.Where(), who, benches, reason)
	if err != nil {
		return "", err
	}
	if len(marks) > 0 {
		s.log.Info("false alarm marked", "target", to.String(), "run", marks[0].RunID, "by", who, "marks", len(marks))
	}
	return reply, nil
}
