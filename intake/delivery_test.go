package intake

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"testing"
)

type deliveryLog struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (l *deliveryLog) DeliveryHandled(_ context.Context, id string) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seen[id], nil
}

func (l *deliveryLog) SeeDelivery(_ context.Context, id string) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	had := l.seen[id]
	l.seen[id] = true
	return !had, nil
}

func TestDeliveriesHandleOnce(t *testing.T) {
	ctx := context.Background()
	seen := &deliveryLog{seen: map[string]bool{}}
	var d Deliveries
	log := slog.New(slog.DiscardHandler)
	calls := 0
	ok := func(context.Context) (int, string, string, error) {
		calls++
		return http.StatusOK, "queued", "queued", nil
	}
	fail := func(context.Context) (int, string, string, error) {
		calls++
		return 0, "", "", errors.New("store down")
	}

	// A failed handling is not recorded: the redelivery runs again.
	if code, result, _ := d.Handle(ctx, seen, log, "d1", "note", fail); code != http.StatusInternalServerError || result != "error" {
		t.Errorf("failed handling answered %d %s, want 500 error", code, result)
	}
	if code, result, _ := d.Handle(ctx, seen, log, "d1", "note", ok); code != http.StatusOK || result != "queued" {
		t.Errorf("redelivery answered %d %s, want 200 queued", code, result)
	}
	if code, result, _ := d.Handle(ctx, seen, log, "d1", "note", ok); code != http.StatusOK || result != "replayed" {
		t.Errorf("replay answered %d %s, want 200 replayed", code, result)
	}
	if calls != 2 {
		t.Errorf("dispatch ran %d times, want 2", calls)
	}

	// The same delivery arriving while it is handled is refused.
	inside := make(chan struct{})
	release := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Handle(ctx, seen, log, "d2", "note", func(context.Context) (int, string, string, error) {
			close(inside)
			<-release
			return http.StatusOK, "queued", "queued", nil
		})
	}()
	<-inside
	if code, result, _ := d.Handle(ctx, seen, log, "d2", "note", ok); code != http.StatusConflict || result != "in_flight" {
		t.Errorf("concurrent delivery answered %d %s, want 409 in_flight", code, result)
	}
	close(release)
	<-done

	// Without an id every delivery is handled, and nothing is recorded.
	calls = 0
	for range 2 {
		d.Handle(ctx, seen, log, "", "note", ok)
	}
	if calls != 2 || seen.seen[""] {
		t.Errorf("deliveries without id: %d dispatches, recorded %v; want 2 and not recorded", calls, seen.seen[""])
	}
}
