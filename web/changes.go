package web

import (
	"net/http"
	"strconv"

	"github.com/perfbot/perfbot/store"
)

// changes reads the change points of tracked branches, newest first, at
// most ?limit= of them (default and cap 1,000).
func (s *Server) changes(r *http.Request) ([]store.ChangePoint, error) {
	limit := 1000
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, badRequest("limit=%q: want a positive number", v)
		}
		limit = min(n, limit)
	}
	cps, err := s.st.ChangePoints(r.Context(), store.ChangePointFilter{Track: r.URL.Query().Get("track"), Limit: limit})
	if cps == nil {
		cps = []store.ChangePoint{}
	}
	return cps, err
}

func (s *Server) changesPage(w http.ResponseWriter, r *http.Request) error {
	cps, err := s.changes(r)
	if err != nil {
		return err
	}
	return s.render(w, "changes", map[string]any{"Title": "change points", "Changes": cps})
}

func (s *Server) apiChanges(w http.ResponseWriter, r *http.Request) error {
	cps, err := s.changes(r)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, cps)
}
