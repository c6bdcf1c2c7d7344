package storetest

import (
	"context"

	"github.com/perfbot/perfbot/falsealarm"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/venue"
)

// Marker marks false alarms in Store for a target ("gitlab:GROUP/PROJECT!N",
// "gerrit:CHANGE/PS"), as falsealarm.MarkLatest; it is intake.Marker without the
// service's shorthands, for the intakes' tests (a venue's target is parsed
// by review, which falsealarm, read by jobs and pages, must not import).
type Marker struct{ Store *store.Store }

// MarkFalseAlarm marks, for who, the verdicts of benches in the latest
// finished run answered to target, and returns the acknowledgement.
func (m Marker) MarkFalseAlarm(ctx context.Context, target, who string, benches []string, reason string) (string, error) {
	t, err := venue.ParseTarget(target)
	if err != nil {
		return "", err
	}
	reply, _, err := falsealarm.MarkLatest(ctx, m.Store, t.Venue, t.Where, who, benches, reason)
	return reply, err
}
