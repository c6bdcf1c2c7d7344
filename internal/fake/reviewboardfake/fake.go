// Package reviewboardfake is a fake Review Board Web API 2.0 for tests:
// the resources perfbot's Review Board client, intake and answers use,
// with the shapes Review Board documents (token auth, {"stat": ...} JSON
// answers with err.code and err.msg, list paging with start, max-results
// and links.next, the last-updated-from filter, form-encoded writes,
// review drafts that the author alone sees until public is set, published
// reviews that cannot change, replies, reviews and replies with
// links.user.title, public and timestamp, a review request's last_updated
// moved by every published review or reply, and the diff resource as a
// patch for Accept: text/x-patch). Its web pages (/r/...) require a login:
// they redirect to /account/login/, as a site that is not public does.
// Tests can inject failures (Fail) and read every request it served
// (Requests).
package reviewboardfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is a review request on the fake site.
type Request struct {
	ID         int
	Summary    string
	Submitter  string
	Repository string // the repository ID it is filed against
	// Patches are its diff revisions, 1 first.
	Patches []string
	// Updated is when it was last updated (default: when it is added).
	Updated time.Time
}

// Review is a review, or a reply to one (ReplyTo set), as stored.
type Review struct {
	ID, ReplyTo int
	User        string
	// BodyTop and BodyBottom are its texts, each "plain" (the default)
	// or "markdown" by its *TextType.
	BodyTop, BodyTopTextType       string
	BodyBottom, BodyBottomTextType string
	ExtraData                      map[string]string
	Public                         bool
	Timestamp                      time.Time
}

// Server is the fake site. URL is its address, Token the API token it
// takes and User the account that token signs in as.
type Server struct {
	URL, Token, User string

	t    *testing.T
	srv  *httptest.Server
	path string // where the site lives on the server, "/" or "/rb/"

	mu       sync.Mutex
	reqs     []*Request
	updated  map[int]time.Time
	reviews  map[int][]Review // by review request, in publishing order
	nextID   int
	listings map[int]int
	requests []string
	fail     []int
	echoAuth bool
	diffHTML bool
}

// New starts a fake site at the server's root, closed when the test ends.
func New(t *testing.T) *Server { return NewAt(t, "/") }

// NewAt starts a fake site under path ("/rb/"), as a site installed below
// a web server's root is, closed when the test ends.
func NewAt(t *testing.T, path string) *Server {
	s := &Server{Token: "rbtok_fake0123456789abcdef", User: "perfbot", t: t, path: path,
		updated: map[int]time.Time{}, reviews: map[int][]Review{}, nextID: 100, listings: map[int]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+path+"api/session/", s.auth(s.session))
	mux.HandleFunc("GET "+path+"api/review-requests/", s.auth(s.listRequests))
	mux.HandleFunc("GET "+path+"api/review-requests/{id}/diffs/", s.auth(s.listDiffs))
	mux.HandleFunc("GET "+path+"api/review-requests/{id}/diffs/{rev}/", s.auth(s.diff))
	mux.HandleFunc("GET "+path+"api/review-requests/{id}/reviews/", s.auth(s.listReviews))
	mux.HandleFunc("POST "+path+"api/review-requests/{id}/reviews/", s.auth(s.createReview))
	mux.HandleFunc("GET "+path+"api/review-requests/{id}/reviews/{rid}/", s.auth(s.getReview))
	mux.HandleFunc("PUT "+path+"api/review-requests/{id}/reviews/{rid}/", s.auth(s.updateReview))
	mux.HandleFunc("GET "+path+"api/review-requests/{id}/reviews/{rid}/replies/", s.auth(s.listReplies))
	mux.HandleFunc("POST "+path+"api/review-requests/{id}/reviews/{rid}/replies/", s.auth(s.createReply))
	mux.HandleFunc("GET "+path+"r/", func(w http.ResponseWriter, r *http.Request) {
		s.note(r)
		http.Redirect(w, r, path+"account/login/?next="+url.QueryEscape(r.URL.Path), http.StatusFound)
	})
	mux.HandleFunc("GET "+path+"account/login/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, loginPage, path)
	})
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	s.URL = s.srv.URL + path
	return s
}

// Handler is what serves the site, for a test that puts something in
// front of it.
func (s *Server) Handler() http.Handler { return s.srv.Config.Handler }

// Wrap puts mw in front of the site's handler (a recorder, say).
func (s *Server) Wrap(mw func(http.Handler) http.Handler) {
	s.srv.Config.Handler = mw(s.srv.Config.Handler)
}

// AddRequest files a review request, updated at r.Updated (default now).
func (s *Server) AddRequest(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Updated.IsZero() {
		r.Updated = time.Now().UTC()
	}
	s.reqs = append(s.reqs, &r)
	s.updated[r.ID] = r.Updated
}

// Publish publishes a review (ReplyTo 0) or a reply on review request id
// as rv.User, now, and returns its ID. Like Review Board, it moves the
// request's last_updated to the review's timestamp.
func (s *Server) Publish(id int, rv Review) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	rv.ID, rv.Public, rv.Timestamp = 0, true, time.Time{}
	return s.add(id, rv)
}

// Add stores a review or reply on review request id as given: a draft
// when not Public. A zero ID takes the next free one, a zero Timestamp
// now, an empty text type "plain". It returns the ID.
func (s *Server) Add(id int, rv Review) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(id, rv)
}

func (s *Server) add(id int, rv Review) int {
	if rv.ID == 0 {
		s.nextID++
		rv.ID = s.nextID
	}
	if rv.Timestamp.IsZero() {
		rv.Timestamp = time.Now().UTC()
	}
	if rv.BodyTopTextType == "" {
		rv.BodyTopTextType = "plain"
	}
	if rv.BodyBottomTextType == "" {
		rv.BodyBottomTextType = "plain"
	}
	s.reviews[id] = append(s.reviews[id], rv)
	if rv.Public {
		s.updated[id] = rv.Timestamp
	}
	return rv.ID
}

// Reviews returns the reviews and replies of review request id by user
// ("" for all), drafts too, in the order they were made.
func (s *Server) Reviews(id int, user string) []Review {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Review
	for _, rv := range s.reviews[id] {
		if user == "" || rv.User == user {
			out = append(out, rv)
		}
	}
	return out
}

// Listings is how often the reviews of review request id were listed.
func (s *Server) Listings(id int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listings[id]
}

// Requests is every request the site was sent, "METHOD /path", in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Fail makes the next API requests fail, one status each: 429 is Review
// Board's rate limit (Retry-After: 4), 404 its "Object does not exist",
// and any other status the HTML error page of a proxy in front of it.
func (s *Server) Fail(statuses ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = append(s.fail, statuses...)
}

// EchoAuth makes a refused login repeat the Authorization header it was
// sent in its message, so that a test can check that perfbot keeps a
// site's error text from leaking its token.
func (s *Server) EchoAuth() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.echoAuth = true
}

// ServeDiffHTML makes the diff resource answer with an HTML page, as a
// proxy or single sign-on page in front of the site does.
func (s *Server) ServeDiffHTML(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.diffHTML = on
}

func (s *Server) note(r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r.Method+" "+r.URL.Path)
}

func writeJSON(w http.ResponseWriter, code int, v map[string]any) {
	if _, ok := v["stat"]; !ok {
		v["stat"] = "ok"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, map[string]any{"stat": "fail", "err": map[string]any{"code": code, "msg": msg}})
}

// auth notes the request, answers an injected failure, takes the API
// token ("Authorization: token TOKEN") and checks that JSON resources are
// asked for as JSON and writes are form-encoded.
func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.requests = append(s.requests, r.Method+" "+r.URL.Path)
		if len(s.fail) > 0 {
			status := s.fail[0]
			s.fail = s.fail[1:]
			switch status {
			case http.StatusTooManyRequests:
				w.Header().Set("Retry-After", "4")
				fail(w, status, 0, "Too many requests")
			case http.StatusNotFound:
				fail(w, status, 100, "Object does not exist")
			default:
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.WriteHeader(status)
				fmt.Fprintf(w, "<html><body><h1>%d %s</h1></body></html>\n", status, http.StatusText(status))
			}
			return
		}
		if r.Header.Get("Authorization") != "token "+s.Token {
			msg := "You are not logged in"
			if s.echoAuth {
				msg += " (" + r.Header.Get("Authorization") + ")"
			}
			w.Header().Set("WWW-Authenticate", `Basic realm="Web API"`)
			fail(w, 401, 103, msg)
			return
		}
		if r.PathValue("rev") == "" && !strings.HasPrefix(r.Header.Get("Accept"), "application/json") {
			s.t.Errorf("%s %s: Accept %q, want application/json", r.Method, r.URL.Path, r.Header.Get("Accept"))
		}
		if r.Method != "GET" && r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			fail(w, 400, 105, "One or more fields had errors")
			return
		}
		h(w, r)
	}
}

func (s *Server) userLink(name string) map[string]string {
	return map[string]string{"href": s.URL + "api/users/" + name + "/", "method": "GET", "title": name}
}

func (s *Server) session(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, map[string]any{"session": map[string]any{"authenticated": true,
		"links": map[string]any{"self": map[string]string{"href": s.URL + "api/session/", "method": "GET"}, "user": s.userLink(s.User)}}})
}

// page slices a list of n items by start and max-results (at most 25 a
// page, to exercise paging), with links.next while more remain.
func (s *Server) page(r *http.Request, n int) (lo, hi int, links map[string]any) {
	start, _ := strconv.Atoi(r.URL.Query().Get("start"))
	limit, _ := strconv.Atoi(r.URL.Query().Get("max-results"))
	if limit <= 0 || limit > 25 {
		limit = 25
	}
	start = max(start, 0)
	lo, hi = min(start, n), min(start+limit, n)
	links = map[string]any{"self": map[string]string{"href": s.srv.URL + r.URL.String(), "method": "GET"}}
	if hi < n {
		q := r.URL.Query()
		q.Set("start", strconv.Itoa(hi))
		q.Set("max-results", strconv.Itoa(limit))
		links["next"] = map[string]string{"href": s.srv.URL + r.URL.Path + "?" + q.Encode(), "method": "GET"}
	}
	return lo, hi, links
}

func (s *Server) find(r *http.Request) *Request {
	id, _ := strconv.Atoi(r.PathValue("id"))
	for _, rq := range s.reqs {
		if rq.ID == id {
			return rq
		}
	}
	return nil
}

// request is the review request the path names, or nil after answering
// 404 Object does not exist.
func (s *Server) request(w http.ResponseWriter, r *http.Request) *Request {
	rq := s.find(r)
	if rq == nil {
		fail(w, 404, 100, "Object does not exist")
	}
	return rq
}

// review is the review request and the index in its reviews of the
// review (not a reply) the path's rid names, if ok accepts it; else nil
// after answering 404 Object does not exist.
func (s *Server) review(w http.ResponseWriter, r *http.Request, ok func(Review) bool) (*Request, int) {
	if rq := s.find(r); rq != nil {
		rid, _ := strconv.Atoi(r.PathValue("rid"))
		for i, rv := range s.reviews[rq.ID] {
			if rv.ID == rid && rv.ReplyTo == 0 && ok(rv) {
				return rq, i
			}
		}
	}
	fail(w, 404, 100, "Object does not exist")
	return nil, -1
}

func (s *Server) listRequests(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var from time.Time
	if v := q.Get("last-updated-from"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			fail(w, 400, 105, "One or more fields had errors")
			return
		}
		from = t
	}
	var match []*Request
	for _, rq := range s.reqs {
		if (q.Get("repository") == "" || q.Get("repository") == rq.Repository) &&
			(q.Get("status") == "" || q.Get("status") == "pending" || q.Get("status") == "all") && !s.updated[rq.ID].Before(from) {
			match = append(match, rq)
		}
	}
	lo, hi, links := s.page(r, len(match))
	out := []map[string]any{}
	for _, rq := range match[lo:hi] {
		out = append(out, map[string]any{
			"id": rq.ID, "summary": rq.Summary, "status": "pending", "public": true,
			"absolute_url": fmt.Sprintf("%sr/%d/", s.URL, rq.ID), "last_updated": s.updated[rq.ID].Format(time.RFC3339Nano),
			"links": map[string]any{"submitter": s.userLink(rq.Submitter),
				"diffs": map[string]string{"href": fmt.Sprintf("%sapi/review-requests/%d/diffs/", s.URL, rq.ID), "method": "GET"}},
		})
	}
	writeJSON(w, 200, map[string]any{"review_requests": out, "total_results": len(match), "links": links})
}

// diffJSON is revision rev (1 first) of rq's diff.
func diffJSON(rq *Request, rev int) map[string]any {
	return map[string]any{"id": 500 + rev - 1, "revision": rev, "name": "diff", "basedir": "/", "timestamp": rq.Updated.Format(time.RFC3339Nano)}
}

func (s *Server) listDiffs(w http.ResponseWriter, r *http.Request) {
	rq := s.request(w, r)
	if rq == nil {
		return
	}
	out := []map[string]any{}
	for i := range rq.Patches {
		out = append(out, diffJSON(rq, i+1))
	}
	writeJSON(w, 200, map[string]any{"diffs": out, "total_results": len(out), "links": map[string]any{}})
}

// loginPage is the site's login form, with the site's path.
const loginPage = `<!DOCTYPE html>
<html><head><title>Log In | Review Board</title></head>
<body><form method="post" action="%saccount/login/"><input name="username"><input name="password" type="password"></form></body></html>
`

// diff is the diff resource: the patch for Accept: text/x-patch, else
// the diff's JSON.
func (s *Server) diff(w http.ResponseWriter, r *http.Request) {
	rq := s.find(r)
	rev, _ := strconv.Atoi(r.PathValue("rev"))
	if rq == nil || rev < 1 || rev > len(rq.Patches) {
		fail(w, 404, 100, "Object does not exist")
		return
	}
	if s.diffHTML {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, loginPage, s.path)
		return
	}
	if r.Header.Get("Accept") != "text/x-patch" {
		writeJSON(w, 200, map[string]any{"diff": diffJSON(rq, rev)})
		return
	}
	w.Header().Set("Content-Type", "text/x-patch")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=diffset-%d.diff", rev))
	fmt.Fprint(w, rq.Patches[rev-1])
}

func (s *Server) reviewJSON(id int, rv Review) map[string]any {
	extra := map[string]any{}
	for k, v := range rv.ExtraData {
		extra[k] = v
	}
	kind, href := "review", fmt.Sprintf("%sapi/review-requests/%d/reviews/%d/", s.URL, id, rv.ID)
	if rv.ReplyTo != 0 {
		kind, href = "reply", fmt.Sprintf("%sapi/review-requests/%d/reviews/%d/replies/%d/", s.URL, id, rv.ReplyTo, rv.ID)
	}
	return map[string]any{
		"id": rv.ID, "body_top": rv.BodyTop, "body_top_text_type": rv.BodyTopTextType, "body_bottom": rv.BodyBottom, "body_bottom_text_type": rv.BodyBottomTextType,
		"public": rv.Public, "ship_it": false, "extra_data": extra, "timestamp": rv.Timestamp.Format(time.RFC3339Nano),
		"absolute_url": fmt.Sprintf("%sr/%d/#%s%d", s.URL, id, kind, rv.ID),
		"links":        map[string]any{"self": map[string]string{"href": href, "method": "GET"}, "user": s.userLink(rv.User)},
	}
}

// list answers the published reviews of a request (replyTo 0) or the
// published replies to one review, under key.
func (s *Server) list(w http.ResponseWriter, r *http.Request, rq *Request, replyTo int, key string) {
	var public []Review
	for _, rv := range s.reviews[rq.ID] {
		if rv.Public && rv.ReplyTo == replyTo {
			public = append(public, rv)
		}
	}
	lo, hi, links := s.page(r, len(public))
	out := []map[string]any{}
	for _, rv := range public[lo:hi] {
		out = append(out, s.reviewJSON(rq.ID, rv))
	}
	writeJSON(w, 200, map[string]any{key: out, "total_results": len(public), "links": links})
}

func (s *Server) listReviews(w http.ResponseWriter, r *http.Request) {
	rq := s.request(w, r)
	if rq == nil {
		return
	}
	if r.URL.Query().Get("start") == "" {
		s.listings[rq.ID]++
	}
	s.list(w, r, rq, 0, "reviews")
}

func (s *Server) listReplies(w http.ResponseWriter, r *http.Request) {
	rq, i := s.review(w, r, func(Review) bool { return true })
	if rq == nil {
		return
	}
	s.list(w, r, rq, s.reviews[rq.ID][i].ID, "replies")
}

// fill sets rv's fields from a form-encoded write: body_top,
// body_bottom, their text types, extra_data.KEY and public. It reports
// false for a field Review Board would refuse.
func fill(rv *Review, r *http.Request) bool {
	if err := r.ParseForm(); err != nil {
		return false
	}
	f := r.PostForm
	for _, t := range []struct {
		text, kind string
		body, typ  *string
	}{{"body_top", "body_top_text_type", &rv.BodyTop, &rv.BodyTopTextType}, {"body_bottom", "body_bottom_text_type", &rv.BodyBottom, &rv.BodyBottomTextType}} {
		if v, ok := f[t.text]; ok {
			*t.body = v[0]
		}
		if v := f.Get(t.kind); v != "" {
			if v != "plain" && v != "markdown" {
				return false
			}
			*t.typ = v
		}
	}
	for k, v := range f {
		if name, ok := strings.CutPrefix(k, "extra_data."); ok {
			if rv.ExtraData == nil {
				rv.ExtraData = map[string]string{}
			}
			rv.ExtraData[name] = v[0]
		}
	}
	if p := f.Get("public"); p == "true" || p == "1" {
		rv.Public = true
	}
	return true
}

// store saves a review or reply written through the API: a new one is
// added, a draft updated in place; publishing it stamps it now and moves
// the request's last_updated.
func (s *Server) store(rq *Request, i int, rv Review) {
	if rv.Public {
		rv.Timestamp = time.Now().UTC()
		s.updated[rq.ID] = rv.Timestamp
	}
	if i < 0 {
		s.add(rq.ID, rv)
		return
	}
	s.reviews[rq.ID][i] = rv
}

// draft is the index of user's draft review (replyTo 0) or draft reply
// to review replyTo on rq, or -1: Review Board keeps one a user.
func (s *Server) draft(rq *Request, replyTo int) int {
	for i, rv := range s.reviews[rq.ID] {
		if !rv.Public && rv.User == s.User && rv.ReplyTo == replyTo {
			return i
		}
	}
	return -1
}

// createReview writes the user's review from the form: into the user's
// draft if there is one (303 See Other to it, which an HTTP client
// follows), else a new one (201 Created), published when public is true
// (perfbot always asks so).
func (s *Server) createReview(w http.ResponseWriter, r *http.Request) {
	rq := s.request(w, r)
	if rq == nil {
		return
	}
	i := s.draft(rq, 0)
	rv := Review{User: s.User, BodyTopTextType: "plain", BodyBottomTextType: "plain"}
	if i >= 0 {
		rv = s.reviews[rq.ID][i]
	}
	if !fill(&rv, r) {
		fail(w, 400, 105, "One or more fields had errors")
		return
	}
	if !rv.Public {
		s.t.Errorf("POST %s: public=%q; perfbot publishes its reviews at once", r.URL.Path, r.PostForm.Get("public"))
	}
	s.store(rq, i, rv)
	draft := i >= 0
	if !draft {
		i = len(s.reviews[rq.ID]) - 1
	}
	stored := s.reviews[rq.ID][i]
	w.Header().Set("Location", fmt.Sprintf("%sapi/review-requests/%d/reviews/%d/", s.URL, rq.ID, stored.ID))
	if draft {
		w.WriteHeader(http.StatusSeeOther)
		return
	}
	writeJSON(w, 201, map[string]any{"review": s.reviewJSON(rq.ID, stored)})
}

// getReview is one review: a draft only to its author.
func (s *Server) getReview(w http.ResponseWriter, r *http.Request) {
	rq, i := s.review(w, r, func(rv Review) bool { return rv.Public || rv.User == s.User })
	if rq == nil {
		return
	}
	writeJSON(w, 200, map[string]any{"review": s.reviewJSON(rq.ID, s.reviews[rq.ID][i])})
}

// updateReview changes the user's draft review; a published review
// cannot change (403).
func (s *Server) updateReview(w http.ResponseWriter, r *http.Request) {
	rq, i := s.review(w, r, func(Review) bool { return true })
	if rq == nil {
		return
	}
	rv := s.reviews[rq.ID][i]
	if rv.Public || rv.User != s.User {
		fail(w, 403, 101, "You don't have permission for this")
		return
	}
	if !fill(&rv, r) {
		fail(w, 400, 105, "One or more fields had errors")
		return
	}
	s.store(rq, i, rv)
	writeJSON(w, 200, map[string]any{"review": s.reviewJSON(rq.ID, s.reviews[rq.ID][i])})
}

// createReply writes the user's reply to a published review (201
// Created), published when public is true.
func (s *Server) createReply(w http.ResponseWriter, r *http.Request) {
	rq, i := s.review(w, r, func(rv Review) bool { return rv.Public })
	if rq == nil {
		return
	}
	rp := Review{ReplyTo: s.reviews[rq.ID][i].ID, User: s.User, BodyTopTextType: "plain", BodyBottomTextType: "plain"}
	if !fill(&rp, r) {
		fail(w, 400, 105, "One or more fields had errors")
		return
	}
	s.store(rq, -1, rp)
	writeJSON(w, 201, map[string]any{"reply": s.reviewJSON(rq.ID, s.reviews[rq.ID][len(s.reviews[rq.ID])-1])})
}
