package gitlab

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/perfbot/perfbot/intake"
)

// maxPayload bounds a webhook body, as GitHub's 25 MB do there.
const maxPayload = 25 << 20

const defaultReadTimeout = time.Minute

// ServeHTTP is the webhook endpoint. The X-Gitlab-Token header is compared
// with the secret in constant time before the body is read: a delivery
// without it is answered 401 and nothing else happens. The body is then
// read, capped at 25 MB and within ReadTimeout, and parsed by client-go
// (gitlab.ParseWebhook) only for the events the intake acts on (Note Hook,
// Merge Request Hook); the others are acknowledged and ignored. A
// delivery whose X-Gitlab-Event-UUID was handled before is acknowledged
// and ignored; one whose handling fails (the API or the store) is
// answered 5xx and not recorded, so GitLab's retry is handled afresh.
func (in *Intake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	event := string(gl.HookEventType(r))
	delivery := r.Header.Get("X-Gitlab-Event-UUID")
	reject := func(code int, reason, text string) {
		in.count("perfbot_gitlab_webhook_deliveries_total", "result", reason)
		in.log().Warn("webhook delivery rejected", "reason", reason, "status", code, "detail", text,
			"remote", r.RemoteAddr, "delivery", delivery, "event", event)
		http.Error(w, text, code)
	}
	if r.Method != http.MethodPost {
		reject(http.StatusMethodNotAllowed, "bad_method", "webhook deliveries are POSTed")
		return
	}
	if !in.tokenMatches(gl.HookEventToken(r)) {
		reject(http.StatusUnauthorized, "bad_token", "secret token does not match")
		return
	}
	if r.ContentLength > maxPayload {
		reject(http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("payload larger than %d bytes", maxPayload))
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if t, _, err := mime.ParseMediaType(ct); err != nil || t != "application/json" {
			reject(http.StatusUnsupportedMediaType, "bad_content_type", fmt.Sprintf("Content-Type %q: want application/json", ct))
			return
		}
	}
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(or(in.ReadTimeout, defaultReadTimeout)))
	payload, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPayload))
	rc.SetReadDeadline(time.Time{})
	if err != nil {
		if _, big := errors.AsType[*http.MaxBytesError](err); big {
			reject(http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("payload larger than %d bytes", maxPayload))
		} else {
			reject(http.StatusBadRequest, "unreadable", "payload unreadable")
		}
		return
	}
	code, result, text := in.handleDelivery(r.Context(), delivery, event, payload)
	in.count("perfbot_gitlab_webhook_deliveries_total", "result", result)
	if code >= 400 {
		http.Error(w, text, code)
		return
	}
	w.WriteHeader(code)
	fmt.Fprintln(w, text)
}

// tokenMatches compares the header with the secret in constant time (over
// their digests, so that not even the length leaks); an unset secret
// matches nothing.
func (in *Intake) tokenMatches(token string) bool {
	if len(in.Secret) == 0 || token == "" {
		return false
	}
	got, want := sha256.Sum256([]byte(token)), sha256.Sum256(in.Secret)
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// handleDelivery acts on an authenticated delivery, once per
// X-Gitlab-Event-UUID (intake.Deliveries), and says what to answer: the
// status, the result counted and the response text.
func (in *Intake) handleDelivery(ctx context.Context, delivery, event string, payload []byte) (int, string, string) {
	id := ""
	if delivery != "" {
		id = "gitlab:" + delivery
	}
	return in.deliveries.Handle(ctx, in.Seen, in.log(), id, event, func(ctx context.Context) (int, string, string, error) {
		return in.dispatch(ctx, gl.EventType(event), payload)
	})
}

// dispatch parses the events the intake acts on and hands each to its
// handler. An error means the delivery was not handled.
func (in *Intake) dispatch(ctx context.Context, event gl.EventType, payload []byte) (int, string, string, error) {
	switch event {
	case gl.EventTypeNote, gl.EventConfidentialNote, gl.EventTypeMergeRequest:
	default:
		return http.StatusAccepted, "ignored", fmt.Sprintf("event %q ignored", event), nil
	}
	ev, err := gl.ParseWebhook(event, payload)
	if err != nil {
		return http.StatusBadRequest, "bad_payload", string(event) + " payload: " + err.Error(), nil
	}
	switch e := ev.(type) {
	case *gl.MergeCommentEvent:
		return in.onNote(ctx, e)
	case *gl.MergeEvent:
		return in.onMergeRequest(ctx, e)
	}
	return http.StatusAccepted, "ignored", "note not on a merge request: ignored", nil
}

// onNote handles a new note on a merge request.
func (in *Intake) onNote(ctx context.Context, e *gl.MergeCommentEvent) (int, string, string, error) {
	a := e.ObjectAttributes
	if a.Action != "" && a.Action != gl.CommentEventActionCreate {
		return http.StatusAccepted, "ignored", fmt.Sprintf("note action %q ignored", a.Action), nil
	}
	if e.User == nil || a.ID <= 0 || e.MergeRequest.IID <= 0 {
		return http.StatusBadRequest, "bad_payload", "note payload without user, note id or merge request", nil
	}
	mr := MergeRequest{IID: e.MergeRequest.IID, Title: e.MergeRequest.Title, SHA: e.MergeRequest.LastCommit.ID}
	n := Note{ID: a.ID, Body: a.Note, UserID: e.User.ID, User: e.User.Username, System: a.System}
	return answered(in.HandleNote(ctx, e.Project.PathWithNamespace, mr, n))
}

// onMergeRequest runs a merge request opened, reopened or pushed to (an
// update with oldrev: new commits).
func (in *Intake) onMergeRequest(ctx context.Context, e *gl.MergeEvent) (int, string, string, error) {
	a := e.ObjectAttributes
	if a.Action == "merge" {
		return in.onMerged(ctx, e)
	}
	switch {
	case a.Action == "open", a.Action == "reopen", a.Action == "update" && a.OldRev != "":
	default:
		return http.StatusAccepted, "ignored", fmt.Sprintf("merge request action %q without new commits ignored", a.Action), nil
	}
	if e.User == nil || a.IID <= 0 {
		return http.StatusBadRequest, "bad_payload", "merge request payload without user or iid", nil
	}
	if a.Draft || a.WorkInProgress {
		return http.StatusAccepted, "ignored", "draft merge request ignored", nil
	}
	mr := MergeRequest{IID: a.IID, Title: a.Title, SHA: a.LastCommit.ID}
	return answered(in.HandleMergeRequest(ctx, e.Project.PathWithNamespace, mr, e.User.ID, e.User.Username))
}

// onMerged hands a merged merge request to OnMerged: GitLab sends the
// Merge Request Hook with action "merge" once it merged, and
// object_attributes.merge_commit_sha names the commit the merge left on
// the target branch (the merge or squash commit). That commit links the
// request to its landing, for the follow-up of its verdicts.
func (in *Intake) onMerged(ctx context.Context, e *gl.MergeEvent) (int, string, string, error) {
	if in.OnMerged == nil {
		return http.StatusAccepted, "ignored", "merge ignored: no branch is tracked", nil
	}
	project := e.Project.PathWithNamespace
	if !strings.EqualFold(project, in.Project) {
		return http.StatusAccepted, "ignored", fmt.Sprintf("merge of %q ignored: not %s", project, in.Project), nil
	}
	a := e.ObjectAttributes
	sha := strings.ToLower(a.MergeCommitSHA)
	if a.IID <= 0 || !intake.IsCommitID(sha) {
		return http.StatusBadRequest, "bad_payload", "merge without iid or merge_commit_sha", nil
	}
	if err := in.OnMerged(ctx, in.Project, a.IID, sha); err != nil {
		return 0, "", "", fmt.Errorf("merge of !%d: %w", a.IID, err)
	}
	return http.StatusOK, "merged", "merge recorded", nil
}

func answered(out Outcome, err error) (int, string, string, error) {
	if err != nil {
		return 0, "", "", err
	}
	if out == intake.Ignored {
		return http.StatusAccepted, string(out), string(out), nil
	}
	return http.StatusOK, string(out), string(out), nil
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
