// Package web serves perfbot's history as pages and JSON: the home page
// (branches, latest runs, recent regressions and improvements), one page
// per run (every table, charts, flame graphs, provenance, downloads), one
// page per benchmark history with a chart per commit, and /api/... JSON
// behind each. It only reads the store; no benchmark runs from here.
//
// Pages are rendered on the server by html/template from embedded
// templates and work without JavaScript. Every response carries a
// Content-Security-Policy that allows no script at all.
package web

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"sync"

	"github.com/perfbot/perfbot/internal/safetext"
	"github.com/perfbot/perfbot/store"
)

//go:embed templates/*.html static/*
var files embed.FS

// pageCSP forbids scripts, frames, forms to elsewhere and every resource
// not served by perfbot itself.
const pageCSP = "default-src 'none'; img-src 'self' data:; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// fileCSP is sent with stored files (flame graph SVGs): their own inline
// styles work, nothing else does.
const fileCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"

// Mux is where the handlers are registered: an http.ServeMux, or the
// service's mux (service.Service.Handle).
type Mux interface {
	Handle(pattern string, h http.Handler)
}

// Server answers the pages and the API over one store.
type Server struct {
	st   *store.Store
	log  *slog.Logger
	tmpl map[string]*template.Template
	// pageRows is the most table rows a run page shows at once (foldPage).
	pageRows int

	mu sync.Mutex
	// runs are the comparisons of recently read finished runs.
	runs     map[int64]*readRun
	runOrder []int64
	// reading are the finished runs being read, closed when read.
	reading map[int64]chan struct{}
	// scrub replaces host paths in text (SetScrub); nil changes nothing.
	scrub func(string) string
	// digests renders the digest pages (SetDigests); nil serves none.
	digests DigestFunc
}

// SetScrub makes the pages and the API show every text of a run (its
// error, its comparison, logs and results) through scrub, which replaces
// the host's paths with neutral names as answers do
// (service.Scrubber.String). Call it before serving.
func (s *Server) SetScrub(scrub func(string) string) { s.scrub = scrub }

func (s *Server) scrubText(text string) string {
	if s.scrub == nil || text == "" {
		return text
	}
	return s.scrub(text)
}

func (s *Server) scrubBytes(data []byte) []byte {
	if s.scrub == nil || !bytes.ContainsRune(data, '/') {
		return data
	}
	return []byte(s.scrub(string(data)))
}

// New returns a server over st; log may be nil.
func New(st *store.Store, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{st: st, log: log, tmpl: map[string]*template.Template{}, pageRows: foldPage,
		runs: map[int64]*readRun{}, reading: map[int64]chan struct{}{}}
	for _, page := range []string{"home", "run", "benchmark", "search", "changes", "error"} {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/"+page+".html")
		if err != nil {
			return nil, fmt.Errorf("web: template %s: %w", page, err)
		}
		s.tmpl[page] = t
	}
	return s, nil
}

// Register adds the pages and the API to mux.
func (s *Server) Register(mux Mux) {
	h := func(f func(http.ResponseWriter, *http.Request) error) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Security-Policy", pageCSP)
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.Header().Set("Referrer-Policy", "same-origin")
			tw := &trackingWriter{ResponseWriter: w}
			if err := f(tw, r); err != nil {
				if tw.wrote {
					// The answer was under way (the client left): too
					// late for an error page.
					s.log.Debug("web answer cut short", "path", r.URL.Path, "err", err)
					return
				}
				s.fail(w, r, err)
			}
		})
	}
	mux.Handle("GET /{$}", h(s.home))
	mux.Handle("GET /runs/{id}", h(s.runPage))
	mux.Handle("GET /runs/{id}/charts/{name}", h(s.chartFile))
	mux.Handle("GET /runs/{id}/files/{name}", h(s.storedFile))
	mux.Handle("GET /runs/{id}/results/{variant}", h(s.rawResults))
	mux.Handle("GET /runs/{id}/comparison.json", h(s.comparisonJSON))
	mux.Handle("GET /benchmarks", h(s.searchPage))
	mux.Handle("GET /benchmarks/{name...}", h(s.benchmarkPage))
	mux.Handle("GET /api/home", h(s.apiHome))
	mux.Handle("GET /api/runs", h(s.apiRuns))
	mux.Handle("GET /api/runs/{id}", h(s.apiRun))
	mux.Handle("GET /api/benchmarks", h(s.apiSearch))
	mux.Handle("GET /api/benchmarks/{name...}", h(s.apiBenchmark))
	mux.Handle("GET /changes", h(s.changesPage))
	mux.Handle("GET /api/changes", h(s.apiChanges))
	mux.Handle("GET /static/", h(s.static))
	mux.Handle("GET /digests/{period}", h(s.digestPage))
	mux.Handle("GET /digests/{period}/{end}", h(s.digestPage))
}

// Handler returns a mux holding only the pages and the API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	s.Register(mux)
	return mux
}

// httpError is an error with the status it answers.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func notFound(format string, args ...any) error {
	return &httpError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// fail answers an error: a page for browsers, JSON under /api/. Store
// errors are logged and answered without their text.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := http.StatusInternalServerError, "internal error"
	var he *httpError
	switch {
	case errors.As(err, &he):
		status, msg = he.status, he.msg
	case errors.Is(err, store.ErrNotFound):
		status, msg = http.StatusNotFound, "not found"
	case errors.Is(err, context.Canceled):
		return
	default:
		s.log.Error("web page", "path", r.URL.Path, "err", err)
	}
	if isAPI(r) {
		writeJSON(w, status, map[string]string{"error": msg})
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	s.tmpl["error"].Execute(w, map[string]any{"Title": http.StatusText(status), "Status": status, "Message": msg})
}

func isAPI(r *http.Request) bool { return len(r.URL.Path) >= 5 && r.URL.Path[:5] == "/api/" }

// render executes a page template into a buffer first, so that a failing
// template answers an error instead of half a page.
func (s *Server) render(w http.ResponseWriter, page string, data any) error {
	var b bytes.Buffer
	if err := s.tmpl[page].Execute(&b, data); err != nil {
		return fmt.Errorf("render %s: %w", page, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// No control character or bidi control of a name reaches the reader.
	_, err := io.WriteString(w, safetext.Answer(b.String()))
	return err
}

func runID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, notFound("no run %q: want a run number", r.PathValue("id"))
	}
	return id, nil
}

func (s *Server) static(w http.ResponseWriter, r *http.Request) error {
	sub, err := fs.Sub(files, "static")
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "public, max-age=3600")
	http.StripPrefix("/static/", http.FileServerFS(sub)).ServeHTTP(w, r)
	return nil
}

// trackingWriter notes whether the answer's header was sent.
type trackingWriter struct {
	http.ResponseWriter
	wrote bool
}

func (t *trackingWriter) WriteHeader(code int) {
	t.wrote = true
	t.ResponseWriter.WriteHeader(code)
}

func (t *trackingWriter) Write(p []byte) (int, error) {
	t.wrote = true
	return t.ResponseWriter.Write(p)
}
