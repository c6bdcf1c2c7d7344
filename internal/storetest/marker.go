package storetest

import (
	"context"

	"github.com/perfbot/perfbot/falsealarm"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
)

// Marker marks false alarms in Store for a target ("gitlab:GROUP/PROJECT!N",
// "gerrit:CHANGE/PS"), as falsealarm.MarkLatest; it is intake.Marker without the
// service's shorthands, for the intakes' tests.
type Marker struct{ Store *store.Store }

// MarkFalseAlarm marks, for who, the verdicts of benches in the latest
// finished run answered to to, and returns the acknowledgement.
func (m Marker) MarkFalseAlarm(ctx context.Context, to target.Target, who string, benches []string, reason string) (string, error) {
	reply, _, err := falsealarm.MarkLatest(ctx, m.Store, to.Venue, to.Where(), who, benches, reason)
	return reply, err
}
