// Package wiretest records the HTTP requests a venue client sends to a fake
// server as a readable transcript, and compares it with a golden file, so
// that what perfbot puts on the wire can be read and reviewed.
package wiretest

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/")

// Recorder wraps a fake's handler and notes each request.
type Recorder struct {
	mu      sync.Mutex
	entries []string
}

// Wrap returns h with every request recorded before h serves it.
func (r *Recorder) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		entry := describe(req, body)
		r.mu.Lock()
		r.entries = append(r.entries, entry)
		r.mu.Unlock()
		h.ServeHTTP(w, req)
	})
}

// Transcript is every request so far, in order.
func (r *Recorder) Transcript() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.entries, "\n")
}

// recorded headers; Authorization shows its scheme only.
var headers = []string{"Accept", "Authorization", "Content-Type", "X-Atlassian-Token", "X-Github-Api-Version"}

func describe(req *http.Request, body []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", req.Method, pathAndQuery(req.URL))
	ct := req.Header.Get("Content-Type")
	_, params, _ := mime.ParseMediaType(ct)
	boundary := params["boundary"]
	for _, k := range headers {
		v := req.Header.Get(k)
		if v == "" {
			continue
		}
		switch k {
		case "Authorization":
			scheme, _, _ := strings.Cut(v, " ")
			v = scheme + " <credential>"
		case "Content-Type":
			if boundary != "" {
				v = strings.ReplaceAll(v, boundary, "BOUNDARY")
			}
		}
		fmt.Fprintf(&b, "%s: %s\n", k, v)
	}
	if len(body) > 0 {
		b.WriteString("\n")
		b.WriteString(formatBody(ct, boundary, body))
		if !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func pathAndQuery(u *url.URL) string {
	q := u.Query()
	if len(q) == 0 {
		return u.Path
	}
	return u.Path + "?" + q.Encode() // Encode sorts by key
}

func formatBody(ct, boundary string, body []byte) string {
	switch {
	case strings.HasPrefix(ct, "application/json"):
		var out bytes.Buffer
		if json.Indent(&out, body, "", "  ") == nil {
			return out.String()
		}
	case strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
		vals, err := url.ParseQuery(string(body))
		if err == nil {
			keys := make([]string, 0, len(vals))
			for k := range vals {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var b strings.Builder
			for _, k := range keys {
				for _, v := range vals[k] {
					fmt.Fprintf(&b, "%s = %q\n", k, v)
				}
			}
			return b.String()
		}
	case boundary != "":
		return strings.ReplaceAll(strings.ReplaceAll(string(body), "\r\n", "\n"), boundary, "BOUNDARY")
	}
	return string(body)
}

// Golden compares got with testdata/NAME.golden, or rewrites the file when
// the test runs with -update.
func Golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from what was sent (go test -update rewrites it):\n%s", path, diff(string(want), got))
	}
}

// diff shows the first differing lines.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, wl, gl)
		}
	}
	return ""
}
