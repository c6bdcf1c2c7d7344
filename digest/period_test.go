package digest

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/store"
)

func TestForPeriod(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg := &config.Config{}
	cfg.Defaults()
	end := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	var unknown *UnknownPeriodError
	if _, err := ForPeriod(ctx, st, cfg, "hourly", end); !errors.As(err, &unknown) {
		t.Errorf("hourly: %v, want an UnknownPeriodError", err)
	}
	d, err := ForPeriod(ctx, st, cfg, "weekly", end)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Render("pdf"); err == nil {
		t.Error("pdf rendered")
	}
	for _, format := range []string{"text", "html"} {
		if out, err := d.Render(format); err != nil || out == "" {
			t.Errorf("%s: %q, %v", format, out, err)
		}
	}
	if out, _ := d.Render("html"); !strings.Contains(out, "<") {
		t.Errorf("html rendering is not HTML: %q", out)
	}
	if k := Key("weekly", end.In(time.FixedZone("CET", 3600))); k != "digest:weekly@2026-11-30T08:00:00Z" {
		t.Errorf("key %q", k)
	}
}
