package jira

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeJIRA serves the REST v2 and v3 endpoints perfbot uses, with JIRA's
// documented methods, headers, status codes and JSON shapes.
type fakeJIRA struct {
	t        *testing.T
	srv      *httptest.Server
	cloud    bool
	user     string
	token    string // basic auth password/API token
	pat      string // bearer personal access token
	echoAuth bool

	mu          sync.Mutex
	comments    []fakeComment
	attachments []fakeAttachment
	issues      []string // keys returned by searches
	fail        []int    // statuses served, in order, before real answers
	requests    []string
	nextID      int
	// embedMax caps the comments a search embeds in an issue's comment
	// field (0: all; negative: none), as a site may, so that the rest are
	// paged in.
	embedMax int
}

type fakeComment struct {
	ID, Body   string
	Properties []map[string]any
	// Author is who wrote it (default: perfbot's account).
	Author string
	// ADF is the body as Cloud's REST API v3 returns it; nil: Body's
	// lines as paragraphs.
	ADF map[string]any
	// Created is when it was written (default 2026-11-30T09:00).
	Created string
}

type fakeAttachment struct {
	ID, Filename, MimeType string
	Data                   []byte
	// Author is who uploaded it (default: perfbot's account).
	Author string
}

func newFakeJIRA(t *testing.T) *fakeJIRA {
	f := &fakeJIRA{t: t, user: "perfbot", token: "jira-API-token-0123456789", nextID: 10000}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /rest/api/2/serverInfo", f.auth(f.serverInfo))
	mux.HandleFunc("GET /rest/api/2/issue/{key}/comment", f.auth(f.listComments))
	mux.HandleFunc("POST /rest/api/2/issue/{key}/comment", f.auth(f.addComment))
	mux.HandleFunc("PUT /rest/api/2/issue/{key}/comment/{id}", f.auth(f.updateComment))
	mux.HandleFunc("GET /rest/api/2/issue/{key}", f.auth(f.getIssue))
	mux.HandleFunc("POST /rest/api/2/issue/{key}/attachments", f.auth(f.addAttachment))
	mux.HandleFunc("GET /rest/api/2/myself", f.auth(f.myself))
	mux.HandleFunc("DELETE /rest/api/2/attachment/{id}", f.auth(f.deleteAttachment))
	mux.HandleFunc("GET /secure/attachment/{id}/{name}", f.auth(f.attachmentContent))
	mux.HandleFunc("GET /rest/api/3/issue/{key}/comment", f.auth(f.listCommentsV3))
	mux.HandleFunc("GET /rest/api/2/search", f.auth(f.searchV2))
	mux.HandleFunc("GET /rest/api/3/search/jql", f.auth(f.searchJQL))
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func jiraError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]any{"errorMessages": []string{msg}, "errors": map[string]string{}})
}

func (f *fakeJIRA) auth(h http.HandlerFunc) http.HandlerFunc {
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
		case http.StatusTooManyRequests:
			w.Header().Set("Retry-After", "1")
			jiraError(w, fail, "Rate limit exceeded.")
			return
		case http.StatusBadGateway, http.StatusServiceUnavailable:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(fail)
			fmt.Fprint(w, "<html><body>Service Unavailable</body></html>")
			return
		default:
			jiraError(w, fail, "Issue does not exist or you do not have permission to see it.")
			return
		}
		u, p, basic := r.BasicAuth()
		ok := (basic && u == f.user && p == f.token) || (f.pat != "" && r.Header.Get("Authorization") == "Bearer "+f.pat)
		if !ok {
			msg := "You are not authenticated. Authentication required to perform this operation."
			if f.echoAuth {
				msg += " (" + r.Header.Get("Authorization") + ")"
			}
			jiraError(w, http.StatusUnauthorized, msg)
			return
		}
		if r.Header.Get("Accept") != "application/json" && !strings.HasPrefix(r.URL.Path, "/secure/attachment/") {
			f.t.Errorf("%s %s: Accept %q", r.Method, r.URL.Path, r.Header.Get("Accept"))
		}
		h(w, r)
	}
}

func (f *fakeJIRA) serverInfo(w http.ResponseWriter, r *http.Request) {
	dt, v := "Server", "9.12.2"
	if f.cloud {
		dt, v = "Cloud", "1001.0.0-SNAPSHOT"
	}
	writeJSON(w, http.StatusOK, map[string]any{"baseUrl": f.srv.URL, "version": v, "deploymentType": dt, "buildNumber": 9120002, "serverTitle": "Jira"})
}

// commentJSON is a comment as JIRA returns it: its properties only when
// the request expands them; on Cloud, whose comments are rich text, the
// wiki markup comes back without the {anchor} macros it cannot represent.
func (f *fakeJIRA) commentJSON(r *http.Request, c fakeComment) map[string]any {
	who := c.Author
	if who == "" {
		who = f.user
	}
	author := f.author(who)
	author["active"] = true
	body := c.Body
	if f.cloud {
		body = anchorMacro.ReplaceAllString(body, "")
	}
	created := c.Created
	if created == "" {
		created = "2026-11-30T09:00:00.000+0000"
	}
	out := map[string]any{
		"self": f.srv.URL + "/rest/api/2/issue/10010/comment/" + c.ID, "id": c.ID,
		"author": author, "updateAuthor": author, "body": body,
		"created": created, "updated": created,
	}
	if slices.Contains(strings.Split(r.URL.Query().Get("expand"), ","), "properties") {
		props := c.Properties
		if props == nil {
			props = []map[string]any{}
		}
		out["properties"] = props
	}
	return out
}

var anchorMacro = regexp.MustCompile(`\{anchor:[^}]*\}`)

func (f *fakeJIRA) checkIssue(w http.ResponseWriter, r *http.Request) bool {
	if r.PathValue("key") != "STORE-1" {
		jiraError(w, http.StatusNotFound, "Issue does not exist or you do not have permission to see it.")
		return false
	}
	return true
}

// adfComment is a comment as Cloud's REST API v3 returns it: the body an
// Atlassian Document Format document, the self link under /rest/api/3.
func (f *fakeJIRA) adfComment(r *http.Request, c fakeComment) map[string]any {
	out := f.commentJSON(r, c)
	out["self"] = f.srv.URL + "/rest/api/3/issue/10010/comment/" + c.ID
	doc := c.ADF
	if doc == nil {
		var paras []any
		for _, l := range strings.Split(c.Body, "\n") {
			if l = anchorMacro.ReplaceAllString(l, ""); strings.TrimSpace(l) != "" {
				paras = append(paras, map[string]any{"type": "paragraph", "content": []any{map[string]any{"type": "text", "text": l}}})
			}
		}
		doc = map[string]any{"type": "doc", "version": 1, "content": paras}
	}
	out["body"] = doc
	return out
}

// listCommentsV3 is Cloud's GET /rest/api/3/issue/{key}/comment; Server
// and Data Center have no REST API v3.
func (f *fakeJIRA) listCommentsV3(w http.ResponseWriter, r *http.Request) {
	if !f.cloud {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	f.listComments(w, r)
}

// commentPage is a page of comments as GET .../issue/{key}/comment and the
// search's comment field return it.
func (f *fakeJIRA) commentPage(r *http.Request, all []fakeComment, start, max int) map[string]any {
	lo, hi := min(start, len(all)), min(start+max, len(all))
	out := []map[string]any{}
	for _, c := range all[lo:hi] {
		if strings.HasPrefix(r.URL.Path, "/rest/api/3/") {
			out = append(out, f.adfComment(r, c))
		} else {
			out = append(out, f.commentJSON(r, c))
		}
	}
	return map[string]any{"startAt": start, "maxResults": max, "total": len(all), "comments": out}
}

func (f *fakeJIRA) listComments(w http.ResponseWriter, r *http.Request) {
	if !f.checkIssue(w, r) {
		return
	}
	start, _ := strconv.Atoi(r.URL.Query().Get("startAt"))
	max, _ := strconv.Atoi(r.URL.Query().Get("maxResults"))
	if max <= 0 || max > 50 { // JIRA caps the page below what was asked
		max = 50
	}
	f.mu.Lock()
	all := append([]fakeComment(nil), f.comments...)
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, f.commentPage(r, all, start, max))
}

func (f *fakeJIRA) readBody(w http.ResponseWriter, r *http.Request) (string, []map[string]any, bool) {
	var in struct {
		Body       string           `json:"body"`
		Properties []map[string]any `json:"properties"`
	}
	if r.Header.Get("Content-Type") != "application/json" {
		w.WriteHeader(http.StatusUnsupportedMediaType)
		return "", nil, false
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == "" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"errorMessages": []string{}, "errors": map[string]string{"comment": "Comment body can not be empty!"}})
		return "", nil, false
	}
	if len([]rune(in.Body)) > CommentLimit {
		writeJSON(w, http.StatusBadRequest, map[string]any{"errorMessages": []string{}, "errors": map[string]string{"comment": "The entered text is too long. It exceeds the allowed limit of 32,767 characters."}})
		return "", nil, false
	}
	for _, p := range in.Properties {
		if k, _ := p["key"].(string); k == "" || len(k) > 255 || p["value"] == nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"errorMessages": []string{"The property key must be between 1 and 255 characters long, and the value must be valid JSON."}, "errors": map[string]string{}})
			return "", nil, false
		}
	}
	return in.Body, in.Properties, true
}

func (f *fakeJIRA) addComment(w http.ResponseWriter, r *http.Request) {
	if !f.checkIssue(w, r) {
		return
	}
	body, props, ok := f.readBody(w, r)
	if !ok {
		return
	}
	f.mu.Lock()
	f.nextID++
	c := fakeComment{ID: strconv.Itoa(f.nextID), Body: body, Properties: props}
	f.comments = append(f.comments, c)
	f.mu.Unlock()
	writeJSON(w, http.StatusCreated, f.commentJSON(r, c))
}

func (f *fakeJIRA) updateComment(w http.ResponseWriter, r *http.Request) {
	if !f.checkIssue(w, r) {
		return
	}
	body, props, ok := f.readBody(w, r)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.comments {
		if f.comments[i].ID == r.PathValue("id") {
			f.comments[i].Body = body
			// Properties given on update are set; others stay.
		next:
			for _, p := range props {
				for j, old := range f.comments[i].Properties {
					if old["key"] == p["key"] {
						f.comments[i].Properties[j] = p
						continue next
					}
				}
				f.comments[i].Properties = append(f.comments[i].Properties, p)
			}
			writeJSON(w, http.StatusOK, f.commentJSON(r, f.comments[i]))
			return
		}
	}
	jiraError(w, http.StatusNotFound, "Can not find a comment for the id: "+r.PathValue("id")+".")
}

// author is a user as JIRA writes it: Cloud hides the user name and gives
// an account ID.
func (f *fakeJIRA) author(name string) map[string]any {
	if f.cloud {
		return map[string]any{"accountId": "5b10ac8d82e05b22cc7d4ef5-" + name, "displayName": name}
	}
	return map[string]any{"name": name, "key": name, "displayName": name}
}

// myself is GET /rest/api/2/myself: the signed-in user.
func (f *fakeJIRA) myself(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, f.author(f.user))
}

// deleteAttachment is DELETE /rest/api/2/attachment/{id}: 204.
func (f *fakeJIRA) deleteAttachment(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, a := range f.attachments {
		if a.ID == r.PathValue("id") {
			f.attachments = slices.Delete(f.attachments, i, i+1)
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	jiraError(w, http.StatusNotFound, "The attachment with id '"+r.PathValue("id")+"' does not exist")
}

// attachmentContent serves an attachment's content link.
func (f *fakeJIRA) attachmentContent(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.attachments {
		if a.ID == r.PathValue("id") {
			w.Header().Set("Content-Type", a.MimeType)
			w.Write(a.Data)
			return
		}
	}
	http.NotFound(w, r)
}

func (f *fakeJIRA) attachmentJSON(a fakeAttachment) map[string]any {
	author := a.Author
	if author == "" {
		author = f.user
	}
	return map[string]any{
		"self": f.srv.URL + "/rest/api/2/attachment/" + a.ID, "id": a.ID, "filename": a.Filename,
		"author": f.author(author), "created": "2026-11-30T09:00:00.000+0000",
		"size": len(a.Data), "mimeType": a.MimeType,
		"content": f.srv.URL + "/secure/attachment/" + a.ID + "/" + a.Filename,
	}
}

func (f *fakeJIRA) getIssue(w http.ResponseWriter, r *http.Request) {
	if !f.checkIssue(w, r) {
		return
	}
	f.mu.Lock()
	atts := []map[string]any{}
	for _, a := range f.attachments {
		atts = append(atts, f.attachmentJSON(a))
	}
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"expand": "renderedFields,names,schema", "id": "10010", "self": f.srv.URL + "/rest/api/2/issue/10010", "key": "STORE-1", "fields": map[string]any{"attachment": atts}})
}

// addAttachment follows POST /rest/api/2/issue/{key}/attachments: XSRF
// header, multipart field "file", an array of attachments back.
func (f *fakeJIRA) addAttachment(w http.ResponseWriter, r *http.Request) {
	if !f.checkIssue(w, r) {
		return
	}
	if r.Header.Get("X-Atlassian-Token") != "no-check" {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, "XSRF check failed")
		return
	}
	if err := r.ParseMultipartForm(10 << 20); err != nil {
		jiraError(w, http.StatusBadRequest, "not multipart: "+err.Error())
		return
	}
	var out []map[string]any
	for _, fh := range r.MultipartForm.File["file"] {
		rd, _ := fh.Open()
		data, _ := io.ReadAll(rd)
		f.mu.Lock()
		f.nextID++
		a := fakeAttachment{ID: strconv.Itoa(f.nextID), Filename: fh.Filename, MimeType: fh.Header.Get("Content-Type"), Data: data}
		f.attachments = append(f.attachments, a)
		f.mu.Unlock()
		out = append(out, f.attachmentJSON(a))
	}
	if len(out) == 0 {
		jiraError(w, http.StatusBadRequest, "no file field")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// issueJSON is a search hit: with the comment field when the search asks
// for it (the comments are STORE-1's; up to embedMax of them).
func (f *fakeJIRA) issueJSON(r *http.Request, key string) map[string]any {
	fields := map[string]any{"summary": "Patch for " + key, "updated": "2026-11-29T10:11:12.000+0000",
		"attachment": []map[string]any{f.attachmentJSON(fakeAttachment{ID: "9", Filename: key + ".patch", MimeType: "text/x-diff", Data: []byte("diff")})}}
	if slices.Contains(strings.Split(r.URL.Query().Get("fields"), ","), "comment") {
		var all []fakeComment
		if key == "STORE-1" {
			f.mu.Lock()
			all = append(all, f.comments...)
			f.mu.Unlock()
		}
		n := len(all)
		if f.embedMax != 0 {
			n = max(0, min(n, f.embedMax))
		}
		fields["comment"] = f.commentPage(r, all, 0, n)
	}
	return map[string]any{"expand": "", "id": "1" + key[len("STORE-"):], "self": f.srv.URL + "/rest/api/2/issue/" + key, "key": key, "fields": fields}
}

// searchV2 is Server's GET /rest/api/2/search; Cloud answers 410 Gone.
func (f *fakeJIRA) searchV2(w http.ResponseWriter, r *http.Request) {
	if f.cloud {
		jiraError(w, http.StatusGone, "The requested API has been removed. Please migrate to the /rest/api/3/search/jql API.")
		return
	}
	start, _ := strconv.Atoi(r.URL.Query().Get("startAt"))
	max, _ := strconv.Atoi(r.URL.Query().Get("maxResults"))
	max = min(max, 2) // small pages to exercise paging
	lo, hi := min(start, len(f.issues)), min(start+max, len(f.issues))
	var out []map[string]any
	for _, k := range f.issues[lo:hi] {
		out = append(out, f.issueJSON(r, k))
	}
	writeJSON(w, http.StatusOK, map[string]any{"expand": "schema,names", "startAt": start, "maxResults": max, "total": len(f.issues), "issues": out})
}

// searchJQL is Cloud's GET /rest/api/3/search/jql, paged by nextPageToken.
func (f *fakeJIRA) searchJQL(w http.ResponseWriter, r *http.Request) {
	if !f.cloud {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if r.URL.Query().Get("jql") == "" {
		jiraError(w, http.StatusBadRequest, "The JQL query is required.")
		return
	}
	start := 0
	if tok := r.URL.Query().Get("nextPageToken"); tok != "" {
		start, _ = strconv.Atoi(strings.TrimPrefix(tok, "tok-"))
	}
	max, _ := strconv.Atoi(r.URL.Query().Get("maxResults"))
	hi := min(start+min(max, 2), len(f.issues))
	var out []map[string]any
	for _, k := range f.issues[start:hi] {
		out = append(out, f.issueJSON(r, k))
	}
	page := map[string]any{"issues": out, "isLast": hi >= len(f.issues)}
	if hi < len(f.issues) {
		page["nextPageToken"] = "tok-" + strconv.Itoa(hi)
	}
	writeJSON(w, http.StatusOK, page)
}
