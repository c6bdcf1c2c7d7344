package reviewboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeRB serves the Web API 2.0 resources perfbot uses, as Review Board
// documents them: form-encoded writes, {"stat": ...} JSON answers, list
// paging with links.next, token auth, the last-updated-from filter, the
// diff resource as a patch for Accept: text/x-patch, and published reviews
// that cannot change. Its web pages (/r/...) require a login: they
// redirect to /account/login/, as a site that is not public does.
type fakeRB struct {
	t     *testing.T
	srv   *httptest.Server
	token string
	// diffHTML makes the diff resource answer with an HTML page (a proxy
	// or single sign-on page in front of the site).
	diffHTML bool

	mu       sync.Mutex
	reviews  []fakeReview
	replies  map[int][]fakeReview
	fail     []int
	requests []string
	nextID   int
	echoAuth bool
}

type fakeReview struct {
	ID        int
	BodyTop   string
	TextType  string
	Public    bool
	ExtraData map[string]string
	// User wrote it (default: perfbot's account, "perfbot").
	User string
	// BodyBottom and its BottomType ("plain" when empty).
	BodyBottom, BottomType string
	// At is when it was published (default 2026-11-30 09:00 UTC).
	At time.Time
}

func newFakeRB(t *testing.T) *fakeRB {
	f := &fakeRB{t: t, token: "rbtok_0123456789abcdef0123456789", replies: map[int][]fakeReview{}, nextID: 100}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /rb/api/review-requests/", f.auth(f.listRequests))
	mux.HandleFunc("GET /rb/api/session/", f.auth(f.session))
	mux.HandleFunc("GET /rb/api/review-requests/{id}/diffs/", f.auth(f.listDiffs))
	mux.HandleFunc("GET /rb/api/review-requests/{id}/diffs/{rev}/", f.auth(f.diff))
	mux.HandleFunc("GET /rb/r/", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.requests = append(f.requests, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
		http.Redirect(w, r, "/rb/account/login/?next="+r.URL.Path, http.StatusFound)
	})
	mux.HandleFunc("GET /rb/account/login/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, loginPage)
	})
	mux.HandleFunc("GET /rb/api/review-requests/{id}/reviews/", f.auth(f.listReviews))
	mux.HandleFunc("POST /rb/api/review-requests/{id}/reviews/", f.auth(f.createReview))
	mux.HandleFunc("PUT /rb/api/review-requests/{id}/reviews/{rid}/", f.auth(f.updateReview))
	mux.HandleFunc("GET /rb/api/review-requests/{id}/reviews/{rid}/replies/", f.auth(f.listReplies))
	mux.HandleFunc("POST /rb/api/review-requests/{id}/reviews/{rid}/replies/", f.auth(f.createReply))
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeRB) url() string { return f.srv.URL + "/rb/" }

func writeJSON(w http.ResponseWriter, code int, v map[string]any) {
	if code < 300 {
		v["stat"] = "ok"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func rbFail(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, map[string]any{"stat": "fail", "err": map[string]any{"code": code, "msg": msg}})
}

func (f *fakeRB) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.requests = append(f.requests, r.Method+" "+r.URL.Path)
		fail := 0
		if len(f.fail) > 0 {
			fail, f.fail = f.fail[0], f.fail[1:]
		}
		f.mu.Unlock()
		switch fail {
		case 0:
		case 429:
			w.Header().Set("Retry-After", "4")
			rbFail(w, 429, 0, "Too many requests")
			return
		case 404:
			rbFail(w, 404, 100, "Object does not exist")
			return
		default:
			w.WriteHeader(fail)
			fmt.Fprint(w, "<html>Bad Gateway</html>")
			return
		}
		if r.Header.Get("Authorization") != "token "+f.token {
			msg := "You are not logged in"
			if f.echoAuth {
				msg += " (" + r.Header.Get("Authorization") + ")"
			}
			w.Header().Set("WWW-Authenticate", `Basic realm="Web API"`)
			rbFail(w, 401, 103, msg)
			return
		}
		if !strings.HasPrefix(r.Header.Get("Accept"), "application/json") && r.PathValue("rev") == "" {
			f.t.Errorf("%s %s: Accept %q", r.Method, r.URL.Path, r.Header.Get("Accept"))
		}
		if strings.Contains(r.URL.Path, "/reviews/") && r.PathValue("id") != "42" {
			rbFail(w, 404, 100, "Object does not exist")
			return
		}
		if r.Method != "GET" && r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			rbFail(w, 400, 105, "One or more fields had errors")
			return
		}
		h(w, r)
	}
}

func (f *fakeRB) reviewJSON(rv fakeReview, kind string) map[string]any {
	href := fmt.Sprintf("%sapi/review-requests/42/reviews/%d/", f.url(), rv.ID)
	extra := map[string]any{}
	for k, v := range rv.ExtraData {
		extra[k] = v
	}
	bottomType, at := rv.BottomType, rv.At
	if bottomType == "" {
		bottomType = "plain"
	}
	if at.IsZero() {
		at = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	}
	return map[string]any{
		"id": rv.ID, "body_top": rv.BodyTop, "body_top_text_type": rv.TextType, "body_bottom": rv.BodyBottom, "body_bottom_text_type": bottomType,
		"public": rv.Public, "ship_it": false, "extra_data": extra, "timestamp": at.Format(time.RFC3339),
		"absolute_url": fmt.Sprintf("%sr/42/#%s%d", f.url(), kind, rv.ID),
		"links":        map[string]any{"self": map[string]string{"href": href, "method": "GET"}, "user": f.userLink(rv.User)},
	}
}

// userLink is a resource's link to a user: the user's API resource, titled
// with the user name. An empty name is perfbot's account.
func (f *fakeRB) userLink(name string) map[string]string {
	if name == "" {
		name = "perfbot"
	}
	return map[string]string{"href": f.url() + "api/users/" + name + "/", "method": "GET", "title": name}
}

// session is GET /api/session/: whether the request was signed in, and
// a link to its user.
func (f *fakeRB) session(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, map[string]any{"stat": "ok", "session": map[string]any{"authenticated": true,
		"links": map[string]any{"self": map[string]string{"href": f.url() + "api/session/", "method": "GET"}, "user": f.userLink("")}}})
}

// page slices a list the Review Board way: start and max-results, with a
// links.next href while more remain.
func (f *fakeRB) page(r *http.Request, n int) (lo, hi int, links map[string]any) {
	start, _ := strconv.Atoi(r.URL.Query().Get("start"))
	max, _ := strconv.Atoi(r.URL.Query().Get("max-results"))
	if max <= 0 || max > 25 { // small pages, to exercise paging
		max = 25
	}
	lo, hi = min(start, n), min(start+max, n)
	links = map[string]any{"self": map[string]string{"href": f.srv.URL + r.URL.String(), "method": "GET"}}
	if hi < n {
		q := r.URL.Query()
		q.Set("start", strconv.Itoa(hi))
		q.Set("max-results", strconv.Itoa(max))
		links["next"] = map[string]string{"href": f.srv.URL + r.URL.Path + "?" + q.Encode(), "method": "GET"}
	}
	return lo, hi, links
}

func (f *fakeRB) listReviews(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var public []fakeReview
	for _, rv := range f.reviews {
		if rv.Public { // drafts are not listed
			public = append(public, rv)
		}
	}
	lo, hi, links := f.page(r, len(public))
	out := []map[string]any{}
	for _, rv := range public[lo:hi] {
		out = append(out, f.reviewJSON(rv, "review"))
	}
	writeJSON(w, 200, map[string]any{"reviews": out, "total_results": len(public), "links": links})
}

func (f *fakeRB) fill(rv *fakeReview, r *http.Request) bool {
	if err := r.ParseForm(); err != nil {
		return false
	}
	if v, ok := r.PostForm["body_top"]; ok {
		rv.BodyTop = v[0]
	}
	if v := r.PostForm.Get("body_top_text_type"); v != "" {
		if v != "plain" && v != "markdown" {
			return false
		}
		rv.TextType = v
	}
	for k, v := range r.PostForm {
		if name, ok := strings.CutPrefix(k, "extra_data."); ok {
			if rv.ExtraData == nil {
				rv.ExtraData = map[string]string{}
			}
			rv.ExtraData[name] = v[0]
		}
	}
	if p := r.PostForm.Get("public"); p == "true" || p == "1" {
		rv.Public = true
	}
	return true
}

// createReview reuses the caller's draft (303 in Review Board, which an
// HTTP client follows) or creates one (201), then publishes it when asked.
func (f *fakeRB) createReview(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	rv := fakeReview{ID: f.nextID, TextType: "plain"}
	if !f.fill(&rv, r) {
		rbFail(w, 400, 105, "One or more fields had errors")
		return
	}
	f.reviews = append(f.reviews, rv)
	w.Header().Set("Location", fmt.Sprintf("%sapi/review-requests/42/reviews/%d/", f.url(), rv.ID))
	writeJSON(w, 201, map[string]any{"review": f.reviewJSON(rv, "review")})
}

func (f *fakeRB) updateReview(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rid, _ := strconv.Atoi(r.PathValue("rid"))
	for i := range f.reviews {
		if f.reviews[i].ID != rid {
			continue
		}
		if f.reviews[i].Public {
			rbFail(w, 403, 101, "You don't have permission for this")
			return
		}
		if !f.fill(&f.reviews[i], r) {
			rbFail(w, 400, 105, "One or more fields had errors")
			return
		}
		writeJSON(w, 200, map[string]any{"review": f.reviewJSON(f.reviews[i], "review")})
		return
	}
	rbFail(w, 404, 100, "Object does not exist")
}

func (f *fakeRB) listReplies(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rid, _ := strconv.Atoi(r.PathValue("rid"))
	var public []fakeReview
	for _, rp := range f.replies[rid] {
		if rp.Public { // draft replies are not listed
			public = append(public, rp)
		}
	}
	lo, hi, links := f.page(r, len(public))
	out := []map[string]any{}
	for _, rp := range public[lo:hi] {
		out = append(out, f.reviewJSON(rp, "reply"))
	}
	writeJSON(w, 200, map[string]any{"replies": out, "total_results": len(public), "links": links})
}

func (f *fakeRB) createReply(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rid, _ := strconv.Atoi(r.PathValue("rid"))
	f.nextID++
	rp := fakeReview{ID: f.nextID, TextType: "plain"}
	if !f.fill(&rp, r) {
		rbFail(w, 400, 105, "One or more fields had errors")
		return
	}
	f.replies[rid] = append(f.replies[rid], rp)
	writeJSON(w, 201, map[string]any{"reply": f.reviewJSON(rp, "reply")})
}

// updated is when the fake's review request 42+i was last updated.
func updated(i int) time.Time {
	return time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
}

func (f *fakeRB) listRequests(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("repository") != "3" {
		writeJSON(w, 200, map[string]any{"review_requests": []any{}, "total_results": 0, "links": map[string]any{}})
		return
	}
	var ids []int
	for i := range 30 {
		if from := r.URL.Query().Get("last-updated-from"); from != "" {
			t, err := time.Parse(time.RFC3339, from)
			if err != nil {
				rbFail(w, 400, 105, "One or more fields had errors")
				return
			}
			if updated(i).Before(t) {
				continue
			}
		}
		ids = append(ids, i)
	}
	n := len(ids)
	lo, hi, links := f.page(r, n)
	out := []map[string]any{}
	for _, i := range ids[lo:hi] {
		out = append(out, map[string]any{
			"id": 42 + i, "summary": fmt.Sprintf("Speed up WAL sync %d", i), "status": "pending", "public": true,
			"absolute_url": fmt.Sprintf("%sr/%d/", f.url(), 42+i), "last_updated": updated(i).Format(time.RFC3339),
			"links": map[string]any{"submitter": map[string]string{"href": f.url() + "api/users/alice/", "method": "GET", "title": "alice"},
				"diffs": map[string]string{"href": fmt.Sprintf("%sapi/review-requests/%d/diffs/", f.url(), 42+i), "method": "GET"}},
		})
	}
	writeJSON(w, 200, map[string]any{"review_requests": out, "total_results": n, "links": links})
}

func (f *fakeRB) listDiffs(w http.ResponseWriter, r *http.Request) {
	out := []map[string]any{}
	for rev := 1; rev <= 3; rev++ {
		out = append(out, map[string]any{"id": 500 + rev, "revision": rev, "name": "diff", "timestamp": "2026-11-29T08:07:06Z", "basedir": "/"})
	}
	writeJSON(w, 200, map[string]any{"diffs": out, "total_results": 3, "links": map[string]any{}})
}

const loginPage = `<!DOCTYPE html>
<html><head><title>Log In | Review Board</title></head>
<body><form method="post" action="/rb/account/login/"><input name="username"><input name="password" type="password"></form></body></html>
`

// fakePatch is the diff of every revision.
const fakePatch = "diff --git a/wal.go b/wal.go\nindex 1111111..2222222 100644\n--- a/wal.go\n+++ b/wal.go\n@@ -1 +1 @@\n-old\n+new\n"

// diff is the diff resource: the patch for Accept: text/x-patch, else
// the diff's JSON.
func (f *fakeRB) diff(w http.ResponseWriter, r *http.Request) {
	rev, _ := strconv.Atoi(r.PathValue("rev"))
	if rev < 1 || rev > 3 {
		rbFail(w, 404, 100, "Object does not exist")
		return
	}
	if f.diffHTML {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, loginPage)
		return
	}
	if r.Header.Get("Accept") == "text/x-patch" {
		w.Header().Set("Content-Type", "text/x-patch")
		w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=diffset-%d.diff", rev))
		fmt.Fprint(w, fakePatch)
		return
	}
	writeJSON(w, 200, map[string]any{"diff": map[string]any{"id": 500 + rev, "revision": rev, "name": "diff", "timestamp": "2026-11-29T08:07:06Z", "basedir": "/"}})
}
