package github

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"
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

// spillAfter is how much of a delivery is kept in memory before the rest
// goes to a temporary file: an unsigned body of GitHub's largest size never
// sits in memory.
const spillAfter = 1 << 20

// parseSignature reads an X-Hub-Signature-256 header ("sha256=" and 64 hex
// digits) into the MAC it names.
func parseSignature(sig string) ([]byte, error) {
	hexSig, ok := strings.CutPrefix(sig, "sha256=")
	if !ok {
		return nil, errors.New(`X-Hub-Signature-256 does not start with "sha256="`)
	}
	mac, err := hex.DecodeString(hexSig)
	if err != nil || len(mac) != sha256.Size {
		return nil, errors.New("X-Hub-Signature-256 is not 64 hex digits")
	}
	return mac, nil
}

// spooledBody is a request body read once: kept in memory up to spillAfter
// bytes, the rest in a temporary file (mode 0600) removed by Close.
type spooledBody struct {
	mem  bytes.Buffer
	file *os.File
	size int64
}

// spool copies r into a spooledBody while feeding the HMAC-SHA256 under
// secret, and reports whether the body's MAC equals want. At most limit
// bytes are read; a longer body is an error.
func spool(r io.Reader, secret, want []byte, limit int64) (*spooledBody, bool, error) {
	b := &spooledBody{}
	mac := hmac.New(sha256.New, secret)
	n, err := io.Copy(io.MultiWriter(mac, b), io.LimitReader(r, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("body larger than %d bytes", limit)
	}
	if err != nil {
		b.Close()
		return nil, false, err
	}
	return b, hmac.Equal(want, mac.Sum(nil)), nil
}

// Write appends p, moving to the temporary file once memory holds
// spillAfter bytes.
func (b *spooledBody) Write(p []byte) (int, error) {
	b.size += int64(len(p))
	if b.file == nil && b.mem.Len()+len(p) <= spillAfter {
		return b.mem.Write(p)
	}
	if b.file == nil {
		f, err := os.CreateTemp("", "perfbot-webhook-*")
		if err != nil {
			return 0, fmt.Errorf("spool webhook body: %w", err)
		}
		b.file = f
	}
	return b.file.Write(p)
}

// Reader reads the whole body from its start.
func (b *spooledBody) Reader() (io.Reader, error) {
	if b.file == nil {
		return bytes.NewReader(b.mem.Bytes()), nil
	}
	if _, err := b.file.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("spooled webhook body: %w", err)
	}
	return io.MultiReader(bytes.NewReader(b.mem.Bytes()), b.file), nil
}

// Close removes the temporary file, if any.
func (b *spooledBody) Close() error {
	if b.file == nil {
		return nil
	}
	name := b.file.Name()
	b.file.Close()
	b.file = nil
	return os.Remove(name)
}
