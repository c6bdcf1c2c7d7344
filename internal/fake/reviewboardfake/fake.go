// Package reviewboardfake is a fake Review Board Web API 2.0 for tests of
// the service: the resources perfbot's intake and answers use, with the
// shapes Review Board documents (token auth, {"stat": ...} JSON answers,
// list paging with links.next, the last-updated-from filter, form-encoded
// writes, published reviews and replies with links.user.title, public and
// timestamp, and a review request's last_updated moved by every published
// review or reply).
package reviewboardfake

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

// Request is a review request on the fake site.
type Request struct {
	ID         int
	Summary    string
	Submitter  string
	Repository string // the repository ID it is filed against
	// Patches are its diff revisions, 1 first.
	Patches []string
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

	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	reqs     []*Request
	updated  map[int]time.Time
	reviews  map[int][]Review // by review request, in publishing order
	nextID   int
	listings map[int]int
}

// New starts a fake site, closed when the test ends.
func New(t *testing.T) *Server {
	s := &Server{Token: "rbtok_fake0123456789abcdef", User: "perfbot", t: t,
		updated: map[int]time.Time{}, reviews: map[int][]Review{}, nextID: 100, listings: map[int]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/session/", s.auth(s.session))
	mux.HandleFunc("GET /api/review-requests/", s.auth(s.listRequests))
	mux.HandleFunc("GET /api/review-requests/{id}/diffs/", s.auth(s.listDiffs))
	mux.HandleFunc("GET /api/review-requests/{id}/diffs/{rev}/", s.auth(s.diff))
	mux.HandleFunc("GET /api/review-requests/{id}/reviews/", s.auth(s.listReviews))
	mux.HandleFunc("POST /api/review-requests/{id}/reviews/", s.auth(s.createReview))
	mux.HandleFunc("GET /api/review-requests/{id}/reviews/{rid}/replies/", s.auth(s.listReplies))
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	s.URL = s.srv.URL + "/"
	return s
}

// AddRequest files a review request, updated now.
func (s *Server) AddRequest(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, &r)
	s.updated[r.ID] = time.Now().UTC()
}

// Publish publishes a review (ReplyTo 0) or a reply on review request id
// as rv.User, now, and returns its ID. Like Review Board, it moves the
// request's last_updated to the review's timestamp.
func (s *Server) Publish(id int, rv Review) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.publish(id, rv)
}

func (s *Server) publish(id int, rv Review) int {
	s.nextID++
	rv.ID, rv.Public, rv.Timestamp = s.nextID, true, time.Now().UTC()
	if rv.BodyTopTextType == "" {
		rv.BodyTopTextType = "plain"
	}
	if rv.BodyBottomTextType == "" {
		rv.BodyBottomTextType = "plain"
	}
	s.reviews[id] = append(s.reviews[id], rv)
	s.updated[id] = rv.Timestamp
	return rv.ID
}

// Reviews returns the reviews and replies of review request id by user
// ("" for all), in publishing order.
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

// auth takes the API token ("Authorization: token TOKEN") and checks
// that JSON resources are asked for as JSON and writes are form-encoded.
func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "token "+s.Token {
			w.Header().Set("WWW-Authenticate", `Basic realm="Web API"`)
			fail(w, 401, 103, "You are not logged in")
			return
		}
		if r.PathValue("rev") == "" && !strings.HasPrefix(r.Header.Get("Accept"), "application/json") {
			s.t.Errorf("%s %s: Accept %q, want application/json", r.Method, r.URL.Path, r.Header.Get("Accept"))
		}
		if r.Method != "GET" && r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			fail(w, 400, 105, "One or more fields had errors")
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
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

func (s *Server) listDiffs(w http.ResponseWriter, r *http.Request) {
	rq := s.find(r)
	if rq == nil {
		fail(w, 404, 100, "Object does not exist")
		return
	}
	out := []map[string]any{}
	for i := range rq.Patches {
		out = append(out, map[string]any{"id": 500 + i, "revision": i + 1, "name": "diff", "basedir": "/"})
	}
	writeJSON(w, 200, map[string]any{"diffs": out, "total_results": len(out), "links": map[string]any{}})
}

// diff is the diff resource: the patch for Accept: text/x-patch.
func (s *Server) diff(w http.ResponseWriter, r *http.Request) {
	rq := s.find(r)
	rev, _ := strconv.Atoi(r.PathValue("rev"))
	if rq == nil || rev < 1 || rev > len(rq.Patches) {
		fail(w, 404, 100, "Object does not exist")
		return
	}
	if r.Header.Get("Accept") != "text/x-patch" {
		writeJSON(w, 200, map[string]any{"diff": map[string]any{"id": 500 + rev - 1, "revision": rev, "name": "diff", "basedir": "/"}})
		return
	}
	w.Header().Set("Content-Type", "text/x-patch")
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
func (s *Server) list(w http.ResponseWriter, r *http.Request, replyTo int, key string) {
	rq := s.find(r)
	if rq == nil {
		fail(w, 404, 100, "Object does not exist")
		return
	}
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
	if rq := s.find(r); rq != nil && r.URL.Query().Get("start") == "" {
		s.listings[rq.ID]++
	}
	s.list(w, r, 0, "reviews")
}

func (s *Server) listReplies(w http.ResponseWriter, r *http.Request) {
	rid, _ := strconv.Atoi(r.PathValue("rid"))
	s.list(w, r, rid, "replies")
}

// createReview creates perfbot's review from the form and publishes it
// when public is true (perfbot always asks so).
func (s *Server) createReview(w http.ResponseWriter, r *http.Request) {
	rq := s.find(r)
	if rq == nil {
		fail(w, 404, 100, "Object does not exist")
		return
	}
	if err := r.ParseForm(); err != nil {
		fail(w, 400, 105, "One or more fields had errors")
		return
	}
	rv := Review{User: s.User, BodyTop: r.PostForm.Get("body_top"), BodyTopTextType: r.PostForm.Get("body_top_text_type")}
	if rv.BodyTopTextType != "" && rv.BodyTopTextType != "plain" && rv.BodyTopTextType != "markdown" {
		fail(w, 400, 105, "One or more fields had errors")
		return
	}
	for k, v := range r.PostForm {
		if name, ok := strings.CutPrefix(k, "extra_data."); ok {
			if rv.ExtraData == nil {
				rv.ExtraData = map[string]string{}
			}
			rv.ExtraData[name] = v[0]
		}
	}
	if p := r.PostForm.Get("public"); p != "true" && p != "1" {
		s.t.Errorf("POST %s: public=%q; perfbot publishes its reviews at once", r.URL.Path, p)
	}
	id := s.publish(rq.ID, rv)
	stored := s.reviews[rq.ID][len(s.reviews[rq.ID])-1]
	w.Header().Set("Location", fmt.Sprintf("%sapi/review-requests/%d/reviews/%d/", s.URL, rq.ID, id))
	writeJSON(w, 201, map[string]any{"review": s.reviewJSON(rq.ID, stored)})
}
