package track

import (
	"context"
	"fmt"
	"io"

	"github.com/perfbot/perfbot/store"
)

// Listing says which stored change points to print, and how: what
// "perfbot changes" prints, and "perfbot track" after a run.
type Listing struct {
	// Format is "text" (WriteText) or "json" (WriteJSON).
	Format string
	// Filter selects the change points; its Limit is 0 (all) or more.
	Filter store.ChangePointFilter
}

// Check names the first setting of l that cannot be listed.
func (l Listing) Check() error {
	if l.Format != "text" && l.Format != "json" {
		return fmt.Errorf("--format %q: want text or json", l.Format)
	}
	if l.Filter.Limit < 0 {
		return fmt.Errorf("--limit %d: want 0 or more", l.Filter.Limit)
	}
	return nil
}

// Write prints the change points of st that l selects, newest first.
func (l Listing) Write(ctx context.Context, w io.Writer, st *store.Store) error {
	cps, err := st.ChangePoints(ctx, l.Filter)
	if err != nil {
		return err
	}
	if l.Format == "json" {
		return WriteJSON(w, cps)
	}
	return WriteText(w, cps)
}
