package github

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxPayload is GitHub's largest webhook payload (25 MB).
const maxPayload = 25 << 20

// ValidSignature reports whether sig (the X-Hub-Signature-256 header,
// "sha256=HEX") is the HMAC-SHA256 of body under secret, comparing in
// constant time.
func ValidSignature(secret, body []byte, sig string) bool {
	hexSig, ok := strings.CutPrefix(sig, "sha256=")
	if !ok || len(secret) == 0 {
		return false
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}

// ServeHTTP is the webhook endpoint. A delivery whose signature does not
// verify is answered 401 and nothing else happens; a delivery id seen
// before is acknowledged and ignored; an issue_comment "created" event is
// handled as HandleComment says.
func (in *Intake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "webhook deliveries are POSTed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxPayload+1))
	if err != nil || len(body) > maxPayload {
		http.Error(w, "payload unreadable or too large", http.StatusBadRequest)
		return
	}
	if !ValidSignature(in.Secret, body, r.Header.Get("X-Hub-Signature-256")) {
		in.count("perfbot_webhook_deliveries_total", "result", "bad_signature")
		in.log().Warn("webhook signature mismatch", "remote", r.RemoteAddr, "delivery", r.Header.Get("X-GitHub-Delivery"))
		http.Error(w, "signature does not match", http.StatusUnauthorized)
		return
	}
	delivery := r.Header.Get("X-GitHub-Delivery")
	if delivery == "" {
		http.Error(w, "missing X-GitHub-Delivery", http.StatusBadRequest)
		return
	}
	fresh, err := in.Seen.SeeDelivery(r.Context(), delivery)
	if err != nil {
		in.log().Error("record delivery", "delivery", delivery, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if !fresh {
		in.count("perfbot_webhook_deliveries_total", "result", "replayed")
		fmt.Fprintln(w, "delivery already handled")
		return
	}
	event := r.Header.Get("X-GitHub-Event")
	if event == "ping" {
		in.count("perfbot_webhook_deliveries_total", "result", "ping")
		fmt.Fprintln(w, "pong")
		return
	}
	if event != "issue_comment" {
		in.count("perfbot_webhook_deliveries_total", "result", "ignored")
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprintf(w, "event %q ignored\n", event)
		return
	}
	var ev IssueCommentEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		http.Error(w, "issue_comment payload: "+err.Error(), http.StatusBadRequest)
		return
	}
	if ev.Action != "created" {
		in.count("perfbot_webhook_deliveries_total", "result", "ignored")
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprintf(w, "action %q ignored\n", ev.Action)
		return
	}
	out, err := in.HandleComment(r.Context(), ev.Repository.FullName, ev.Issue, ev.Comment)
	if err != nil {
		in.count("perfbot_webhook_deliveries_total", "result", "error")
		in.log().Error("handle comment", "delivery", delivery, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	in.count("perfbot_webhook_deliveries_total", "result", string(out))
	fmt.Fprintln(w, out)
}
