package github

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// maxPayload is GitHub's largest webhook payload (25 MB).
const maxPayload = 25 << 20

// Defaults of the webhook's limits on unauthenticated reads.
const (
	defaultReadSlots   = 4
	defaultReadWait    = 5 * time.Second
	defaultReadTimeout = time.Minute
	// retryAfter is the Retry-After, in seconds, of a delivery turned
	// away because every read slot was busy.
	retryAfter = 10
)

// ServeHTTP is the webhook endpoint. The signature is checked while the
// body is read: at most ReadSlots bodies are read at once (a delivery that
// finds no slot within ReadWait is answered 503 with Retry-After), each
// capped at GitHub's 25 MB and kept in memory only up to 1 MiB, the rest
// in a temporary file. Nothing is parsed before the signature matched. A
// delivery whose signature does not verify is answered 401 and nothing
// else happens; a delivery id handled before is acknowledged and ignored;
// otherwise go-github parses it and dispatch acts on it. A delivery is
// recorded as handled only once its request was queued, refused, answered
// or ignored for good: when handling fails (the GitHub API or the store),
// it is answered 5xx and GitHub's redelivery is handled afresh. Every
// rejected delivery is logged with its reason and counted.
func (in *Intake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	in.once.Do(in.init)
	delivery := r.Header.Get("X-GitHub-Delivery")
	event := r.Header.Get("X-GitHub-Event")
	reject := func(code int, reason, text string) {
		in.count("perfbot_webhook_deliveries_total", "result", reason)
		in.log().Warn("webhook delivery rejected", "reason", reason, "status", code, "detail", text,
			"remote", r.RemoteAddr, "delivery", delivery, "event", event)
		http.Error(w, text, code)
	}
	if r.Method != http.MethodPost {
		reject(http.StatusMethodNotAllowed, "bad_method", "webhook deliveries are POSTed")
		return
	}
	sig := r.Header.Get("X-Hub-Signature-256")
	want, err := parseSignature(sig)
	if err != nil || len(in.Secret) == 0 {
		reject(http.StatusUnauthorized, "bad_signature", "signature does not match")
		return
	}
	if r.ContentLength > maxPayload {
		reject(http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("payload larger than %d bytes", maxPayload))
		return
	}
	ctype, err := mediaType(r.Header.Get("Content-Type"))
	if err != nil {
		reject(http.StatusUnsupportedMediaType, "bad_content_type", err.Error())
		return
	}
	if !in.acquireRead(r.Context()) {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
		reject(http.StatusServiceUnavailable, "busy", "too many deliveries being read; retry later")
		return
	}
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(or(in.ReadTimeout, defaultReadTimeout)))
	body, ok, err := spool(http.MaxBytesReader(w, r.Body, maxPayload), in.Secret, want, maxPayload)
	in.releaseRead()
	rc.SetReadDeadline(time.Time{})
	if err != nil {
		if _, big := errors.AsType[*http.MaxBytesError](err); big {
			reject(http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("payload larger than %d bytes", maxPayload))
		} else {
			reject(http.StatusBadRequest, "unreadable", "payload unreadable")
		}
		return
	}
	defer body.Close()
	if !ok {
		reject(http.StatusUnauthorized, "bad_signature", "signature does not match")
		return
	}
	if delivery == "" {
		reject(http.StatusBadRequest, "no_delivery_id", "missing X-GitHub-Delivery")
		return
	}
	// The signature matched: only now is the body read into memory, and
	// go-github takes the JSON out of a form-encoded delivery (checking
	// the signature over the raw form body once more).
	rd, err := body.Reader()
	if err != nil {
		in.log().Error("read spooled delivery", "delivery", delivery, "err", err)
		reject(http.StatusInternalServerError, "error", "internal error")
		return
	}
	payload, err := gh.ValidatePayloadFromBody(ctype, rd, sig, in.Secret)
	if err != nil {
		reject(http.StatusBadRequest, "bad_payload", "payload: "+err.Error())
		return
	}
	body.Close()
	code, result, text := in.handleDelivery(r.Context(), delivery, event, payload)
	in.count("perfbot_webhook_deliveries_total", "result", result)
	if code >= 400 {
		http.Error(w, text, code)
		return
	}
	w.WriteHeader(code)
	fmt.Fprintln(w, text)
}

// handleDelivery acts on a verified delivery, once (intake.Deliveries),
// and says what to answer: the status, the result counted in the metrics
// and the response text. A delivery whose handling fails is not recorded:
// GitHub's redelivery of it is handled afresh.
func (in *Intake) handleDelivery(ctx context.Context, delivery, event string, payload []byte) (int, string, string) {
	return in.deliveries.Handle(ctx, in.Seen, in.log(), delivery, event, func(ctx context.Context) (int, string, string, error) {
		return in.dispatch(ctx, delivery, event, payload)
	})
}

// mediaType is the media type of a delivery: JSON (also when the header is
// missing) or a form with the JSON in its payload field, as GitHub sends
// them.
func mediaType(header string) (string, error) {
	if header == "" {
		return "application/json", nil
	}
	t, _, err := mime.ParseMediaType(header)
	if err != nil || (t != "application/json" && t != "application/x-www-form-urlencoded") {
		return "", fmt.Errorf("Content-Type %q: want application/json or application/x-www-form-urlencoded", header)
	}
	return t, nil
}

func (in *Intake) init() {
	in.reads = make(chan struct{}, or(in.ReadSlots, defaultReadSlots))
}

// acquireRead waits up to ReadWait for one of the ReadSlots read slots.
func (in *Intake) acquireRead(ctx context.Context) bool {
	select {
	case in.reads <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(or(in.ReadWait, defaultReadWait))
	defer t.Stop()
	select {
	case in.reads <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

func (in *Intake) releaseRead() { <-in.reads }

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
