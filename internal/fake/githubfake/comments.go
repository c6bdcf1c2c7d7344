package githubfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Comments is a fake of GitHub's REST API holding the comments of one pull
// request, acme/store#3, with the requests and answers GitHub documents for
// listing, creating and editing issue comments, reading the pull request's
// head and setting a commit status. Its first Failures answers are 502. Lock
// it to read or change its fields while it serves.
type Comments struct {
	sync.Mutex
	Failures int
	Comments map[int64]string
	NextID   int64
	Edits    int
	// Authors holds the login of comments not perfbot's; Head is the
	// pull request's head (default c...c); Statuses are "SHA:STATE".
	Authors  map[int64]string
	Head     string
	Statuses []string
}

// ServeHTTP answers one request to the API.
func (f *Comments) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.Lock()
	defer f.Unlock()
	if f.Failures > 0 {
		f.Failures--
		http.Error(w, `{"message":"Server Error"}`, http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	var in struct {
		Body string `json:"body"`
	}
	comment := func(id int64) map[string]any {
		login := "perfbot[bot]"
		if a, ok := f.Authors[id]; ok {
			login = a
		}
		return map[string]any{"id": id, "body": f.Comments[id], "user": map[string]any{"login": login},
			"html_url": fmt.Sprintf("https://github.example/acme/store/pull/3#issuecomment-%d", id)}
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v3/user":
		json.NewEncoder(w).Encode(map[string]any{"login": "perfbot[bot]", "id": 1, "type": "Bot"})
	case r.Method == http.MethodGet && r.URL.Path == "/api/v3/repos/acme/store/issues/3/comments":
		list := []map[string]any{}
		for id := int64(1); id <= f.NextID; id++ {
			if _, ok := f.Comments[id]; ok {
				list = append(list, comment(id))
			}
		}
		json.NewEncoder(w).Encode(list)
	case r.Method == http.MethodPost && r.URL.Path == "/api/v3/repos/acme/store/issues/3/comments":
		json.NewDecoder(r.Body).Decode(&in)
		f.NextID++
		f.Comments[f.NextID] = in.Body
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(comment(f.NextID))
	case r.Method == http.MethodPatch && strings.HasPrefix(r.URL.Path, "/api/v3/repos/acme/store/issues/comments/"):
		var id int64
		fmt.Sscan(strings.TrimPrefix(r.URL.Path, "/api/v3/repos/acme/store/issues/comments/"), &id)
		if _, ok := f.Comments[id]; !ok {
			http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
			return
		}
		json.NewDecoder(r.Body).Decode(&in)
		f.Comments[id] = in.Body
		f.Edits++
		json.NewEncoder(w).Encode(comment(id))
	case r.Method == http.MethodGet && r.URL.Path == "/api/v3/repos/acme/store/pulls/3":
		head := f.Head
		if head == "" {
			head = strings.Repeat("c", 40)
		}
		json.NewEncoder(w).Encode(map[string]any{"number": 3, "head": map[string]any{"sha": head}})
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/api/v3/repos/acme/store/statuses/"):
		var st struct{ State string }
		json.NewDecoder(r.Body).Decode(&st)
		f.Statuses = append(f.Statuses, strings.TrimPrefix(r.URL.Path, "/api/v3/repos/acme/store/statuses/")+":"+st.State)
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id":1}`)
	default:
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	}
}

// Snapshot returns the comments' bodies, oldest first, and how many edits
// were made.
func (f *Comments) Snapshot() (bodies []string, edits int) {
	f.Lock()
	defer f.Unlock()
	for id := int64(1); id <= f.NextID; id++ {
		if b, ok := f.Comments[id]; ok {
			bodies = append(bodies, b)
		}
	}
	return bodies, f.Edits
}
