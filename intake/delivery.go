package intake

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
)

// DeliveryLog remembers the webhook deliveries handled for good.
type DeliveryLog interface {
	DeliveryHandled(ctx context.Context, id string) (bool, error)
	SeeDelivery(ctx context.Context, id string) (bool, error)
}

// Deliveries handles each webhook delivery once. A delivery whose id was
// handled before is answered "replayed"; one being handled at the moment
// is answered 409; one whose handling fails is not recorded, so the
// venue's redelivery is handled afresh. A delivery without an id is
// handled every time. The zero value is ready for use.
type Deliveries struct {
	mu       sync.Mutex
	inFlight map[string]bool
}

// Handle runs dispatch for the delivery id of event unless seen holds it
// as handled already, and says what to answer: the status, the result counted in the
// metrics and the response text. dispatch's error means the delivery was
// not handled.
func (d *Deliveries) Handle(ctx context.Context, seen DeliveryLog, log *slog.Logger, id, event string, dispatch func(context.Context) (int, string, string, error)) (int, string, string) {
	if id != "" {
		if !d.begin(id) {
			log.Warn("webhook delivery rejected", "reason", "in_flight", "status", http.StatusConflict, "delivery", id, "event", event)
			return http.StatusConflict, "in_flight", "delivery is being handled"
		}
		defer d.end(id)
		handled, err := seen.DeliveryHandled(ctx, id)
		if err != nil {
			log.Error("look up delivery", "delivery", id, "err", err)
			return http.StatusServiceUnavailable, "error", "internal error"
		}
		if handled {
			return http.StatusOK, "replayed", "delivery already handled"
		}
	}
	code, result, text, err := dispatch(ctx)
	if err != nil {
		log.Error("handle delivery", "delivery", id, "event", event, "err", err)
		return http.StatusInternalServerError, "error", "internal error"
	}
	if code >= 400 {
		log.Warn("webhook delivery rejected", "reason", result, "status", code, "detail", text, "delivery", id, "event", event)
	}
	if id != "" {
		if _, err := seen.SeeDelivery(ctx, id); err != nil {
			log.Error("record delivery", "delivery", id, "result", result, "err", err)
			return http.StatusInternalServerError, "error", "internal error"
		}
	}
	return code, result, text
}

// begin marks a delivery as being handled; it is false when the same
// delivery is being handled already.
func (d *Deliveries) begin(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.inFlight[id] {
		return false
	}
	if d.inFlight == nil {
		d.inFlight = map[string]bool{}
	}
	d.inFlight[id] = true
	return true
}

func (d *Deliveries) end(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.inFlight, id)
}
