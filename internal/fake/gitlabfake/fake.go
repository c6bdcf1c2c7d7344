// Package gitlabfake is an in-memory GitLab REST API (v4) for tests, with
// the documented request and answer shapes of the calls perfbot makes:
// merge requests, their notes (paged with X-Next-Page), commit statuses
// (with GitLab's refusal to move a pending or running status to the state
// it has), inherited project members, the current user and projects.
// Project ids arrive URL-encoded ("acme%2Fstore"), as GitLab requires.
package gitlabfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MR is a merge request the fake knows.
type MR struct {
	Project string // path with namespace
	IID     int64
	Title   string
	SHA     string // head commit
}

// Note is a note on a merge request.
type Note struct {
	ID     int64
	Body   string
	Author string
	System bool
}

// Status is a commit status set through the API.
type Status struct {
	SHA, Name, State, TargetURL, Description string
}

// Server is the fake.
type Server struct {
	*httptest.Server
	// Token is the access token every request must carry in PRIVATE-TOKEN.
	Token string
	// Login is the account the token signs in as.
	Login string
	// PerPage caps a page of notes (default 100, the API's largest).
	PerPage int

	mu       sync.Mutex
	mrs      map[string]*MR
	notes    map[string][]*Note
	statuses []Status
	members  map[string]map[int64]int // project -> user id -> access level
	nextID   int64
	requests []string
}

// New starts a fake GitLab; Close it when done.
func New(token, login string) *Server {
	s := &Server{Token: token, Login: login, mrs: map[string]*MR{}, notes: map[string][]*Note{},
		members: map[string]map[int64]int{}, nextID: 1000}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

func key(project string, iid int64) string { return fmt.Sprintf("%s!%d", project, iid) }

// AddMR adds a merge request.
func (s *Server) AddMR(mr MR) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mrs[key(mr.Project, mr.IID)] = &mr
}

// AddNote adds a note written by author.
func (s *Server) AddNote(project string, iid int64, author, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	k := key(project, iid)
	s.notes[k] = append(s.notes[k], &Note{ID: s.nextID, Body: body, Author: author})
}

// SetMember gives user id an access level on project (0 removes it).
func (s *Server) SetMember(project string, user int64, level int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.members[project] == nil {
		s.members[project] = map[int64]int{}
	}
	s.members[project][user] = level
}

// Notes returns the notes of a merge request, oldest first.
func (s *Server) Notes(project string, iid int64) []Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Note
	for _, n := range s.notes[key(project, iid)] {
		out = append(out, *n)
	}
	return out
}

// Statuses returns the commit statuses set, in order.
func (s *Server) Statuses() []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Status(nil), s.statuses...)
}

// Requests lists "METHOD ESCAPED-PATH" of every request, in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

var (
	reMR    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^/api/v4/projects/([^/]+)/merge_requests/([0-9]+)$`) })
	reNotes = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^/api/v4/projects/([^/]+)/merge_requests/([0-9]+)/notes$`)
	})
	reNote = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^/api/v4/projects/([^/]+)/merge_requests/([0-9]+)/notes/([0-9]+)$`)
	})
	reStatus  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^/api/v4/projects/([^/]+)/statuses/([0-9a-f]{40})$`) })
	reMember  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^/api/v4/projects/([^/]+)/members/all/([0-9]+)$`) })
	reProject = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^/api/v4/projects/([^/]+)$`) })
)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path := r.URL.EscapedPath()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r.Method+" "+path)
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("PRIVATE-TOKEN") != s.Token {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "401 Unauthorized"})
		return
	}
	var m []string
	project := func() (string, bool) {
		p, err := url.PathUnescape(m[1])
		if err != nil || !strings.Contains(m[1], "%2F") && !isNumber(m[1]) {
			// A path id with a bare "/" would not match these routes
			// at all; one not encoded is refused as GitLab does.
			writeJSON(w, http.StatusNotFound, map[string]any{"message": "404 Project Not Found"})
			return "", false
		}
		return p, true
	}
	switch {
	case r.Method == http.MethodGet && path == "/api/v4/user":
		writeJSON(w, 200, map[string]any{"id": 1, "username": s.Login, "name": s.Login, "state": "active"})
	case r.Method == http.MethodGet && match(&m, reProject(), path):
		p, ok := project()
		if !ok {
			return
		}
		writeJSON(w, 200, map[string]any{"id": 7, "path_with_namespace": p, "web_url": s.URL + "/" + p, "default_branch": "main"})
	case r.Method == http.MethodGet && match(&m, reMR(), path):
		p, ok := project()
		if !ok {
			return
		}
		mr := s.mrs[key(p, atoi(m[2]))]
		if mr == nil {
			writeJSON(w, 404, map[string]any{"message": "404 Not found"})
			return
		}
		writeJSON(w, 200, s.mrJSON(mr))
	case match(&m, reNotes(), path):
		p, ok := project()
		if !ok {
			return
		}
		k := key(p, atoi(m[2]))
		if s.mrs[k] == nil {
			writeJSON(w, 404, map[string]any{"message": "404 Not found"})
			return
		}
		switch r.Method {
		case http.MethodGet:
			s.listNotes(w, r, k)
		case http.MethodPost:
			body, ok := readBody(w, r)
			if !ok {
				return
			}
			s.nextID++
			n := &Note{ID: s.nextID, Body: body, Author: s.Login}
			s.notes[k] = append(s.notes[k], n)
			writeJSON(w, 201, noteJSON(n, atoi(m[2])))
		default:
			writeJSON(w, 405, map[string]any{"message": "405 Method Not Allowed"})
		}
	case r.Method == http.MethodPut && match(&m, reNote(), path):
		p, ok := project()
		if !ok {
			return
		}
		body, ok := readBody(w, r)
		if !ok {
			return
		}
		for _, n := range s.notes[key(p, atoi(m[2]))] {
			if n.ID == atoi(m[3]) {
				if n.Author != s.Login {
					writeJSON(w, 403, map[string]any{"message": "403 Forbidden"})
					return
				}
				n.Body = body
				writeJSON(w, 200, noteJSON(n, atoi(m[2])))
				return
			}
		}
		writeJSON(w, 404, map[string]any{"message": "404 Note Not Found"})
	case r.Method == http.MethodPost && match(&m, reStatus(), path):
		if _, ok := project(); !ok {
			return
		}
		s.setStatus(w, r, m[2])
	case r.Method == http.MethodGet && match(&m, reMember(), path):
		p, ok := project()
		if !ok {
			return
		}
		level, ok := s.members[p][atoi(m[2])]
		if !ok || level == 0 {
			writeJSON(w, 404, map[string]any{"message": "404 Not found"})
			return
		}
		writeJSON(w, 200, map[string]any{"id": atoi(m[2]), "username": fmt.Sprintf("user%s", m[2]), "state": "active", "access_level": level})
	default:
		writeJSON(w, 404, map[string]any{"error": "404 Not Found"})
	}
}

func (s *Server) mrJSON(mr *MR) map[string]any {
	return map[string]any{"id": 100 + mr.IID, "iid": mr.IID, "project_id": 7, "title": mr.Title, "state": "opened",
		"sha": mr.SHA, "source_branch": "feature", "target_branch": "main",
		"web_url": fmt.Sprintf("%s/%s/-/merge_requests/%d", s.URL, mr.Project, mr.IID)}
}

func noteJSON(n *Note, iid int64) map[string]any {
	return map[string]any{"id": n.ID, "body": n.Body, "system": n.System, "noteable_type": "MergeRequest",
		"noteable_iid": iid, "author": map[string]any{"id": 1, "username": n.Author, "name": n.Author},
		"created_at": time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC).Format(time.RFC3339)}
}

// listNotes answers one page of notes with GitLab's pagination headers.
func (s *Server) listNotes(w http.ResponseWriter, r *http.Request, k string) {
	per := s.PerPage
	if per <= 0 {
		per = 100
	}
	if v, err := strconv.Atoi(r.URL.Query().Get("per_page")); err == nil && v > 0 && v < per {
		per = v
	}
	page, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	all := s.notes[k]
	from := min((page-1)*per, len(all))
	to := min(from+per, len(all))
	out := []any{}
	for _, n := range all[from:to] {
		out = append(out, noteJSON(n, 0))
	}
	w.Header().Set("X-Page", strconv.Itoa(page))
	w.Header().Set("X-Per-Page", strconv.Itoa(per))
	w.Header().Set("X-Total", strconv.Itoa(len(all)))
	if to < len(all) {
		w.Header().Set("X-Next-Page", strconv.Itoa(page+1))
	} else {
		w.Header().Set("X-Next-Page", "")
	}
	writeJSON(w, 200, out)
}

// setStatus records a commit status. Like GitLab, a pending or running
// status of the same name cannot be moved back to pending or to the state
// it has (400 "Cannot transition status via :enqueue from :pending").
func (s *Server) setStatus(w http.ResponseWriter, r *http.Request, sha string) {
	var in struct {
		State, Name, Context, TargetURL, Description string
	}
	if err := decode(r, &in); err != nil {
		writeJSON(w, 400, map[string]any{"message": err.Error()})
		return
	}
	switch in.State {
	case "pending", "running", "success", "failed", "canceled", "skipped":
	default:
		writeJSON(w, 400, map[string]any{"error": "state does not have a valid value"})
		return
	}
	name := in.Name
	if name == "" {
		name = "default"
	}
	for i := len(s.statuses) - 1; i >= 0; i-- {
		st := s.statuses[i]
		if st.SHA == sha && st.Name == name && (st.State == "pending" || st.State == "running") {
			// GitLab's state machine: pending is "enqueue", allowed
			// from neither; running is "run", allowed from pending.
			event := map[string]string{"pending": "enqueue", "running": "run"}[in.State]
			if in.State == "pending" || in.State == st.State {
				writeJSON(w, 400, map[string]any{"message": fmt.Sprintf(
					"Cannot transition status via :%s from :%s (Reason(s): Status cannot transition via \"%s\")", event, st.State, event)})
				return
			}
			break
		}
	}
	s.statuses = append(s.statuses, Status{SHA: sha, Name: name, State: in.State, TargetURL: in.TargetURL, Description: in.Description})
	writeJSON(w, 201, map[string]any{"id": len(s.statuses), "sha": sha, "name": name, "status": in.State,
		"target_url": in.TargetURL, "description": in.Description, "allow_failure": false})
}

func readBody(w http.ResponseWriter, r *http.Request) (string, bool) {
	var in struct{ Body string }
	if err := decode(r, &in); err != nil || in.Body == "" {
		writeJSON(w, 400, map[string]any{"error": "body is missing"})
		return "", false
	}
	return in.Body, true
}

// decode reads a JSON body (client-go sends JSON) or a form.
func decode(r *http.Request, v any) error {
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		// Field names are snake_case on the wire.
		var raw map[string]any
		if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
			return err
		}
		fixed := map[string]any{}
		for k, val := range raw {
			fixed[strings.ReplaceAll(k, "_", "")] = val
		}
		b, _ := json.Marshal(fixed)
		return json.Unmarshal(b, v)
	}
	if err := r.ParseForm(); err != nil {
		return err
	}
	fixed := map[string]any{}
	for k := range r.PostForm {
		fixed[strings.ReplaceAll(k, "_", "")] = r.PostForm.Get(k)
	}
	b, _ := json.Marshal(fixed)
	return json.Unmarshal(b, v)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func match(m *[]string, re *regexp.Regexp, path string) bool {
	*m = re.FindStringSubmatch(path)
	return *m != nil
}

func atoi(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }

func isNumber(s string) bool { _, err := strconv.ParseInt(s, 10, 64); return err == nil }
