package track

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/store"
)

func TestListingCheck(t *testing.T) {
	for _, tc := range []struct {
		l    Listing
		want string
	}{
		{Listing{Format: "text"}, ""},
		{Listing{Format: "json", Filter: store.ChangePointFilter{Limit: 3}}, ""},
		{Listing{Format: "yaml"}, `--format "yaml": want text or json`},
		{Listing{Format: "text", Filter: store.ChangePointFilter{Limit: -1}}, "--limit -1: want 0 or more"},
	} {
		got := ""
		if err := tc.l.Check(); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.l, got, tc.want)
		}
	}
}

func TestListingWriteEmpty(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for format, want := range map[string]string{"text": "no change points", "json": "[]"} {
		var b bytes.Buffer
		if err := (Listing{Format: format}).Write(ctx, &b, st); err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(b.String()) != want {
			t.Errorf("%s: %q, want %q", format, b.String(), want)
		}
	}
}

func TestResolve(t *testing.T) {
	cfg := &config.Config{File: "config.yaml"}
	if _, _, err := Resolve(cfg, "", 0, 0); err == nil || !strings.Contains(err.Error(), "give --branch") {
		t.Errorf("no branch anywhere: %v, want give --branch", err)
	}
	cfg.Project.Branch = "main"
	tb, _, err := Resolve(cfg, "", 0, 0)
	if err != nil || tb.Branch != "main" {
		t.Errorf("project.branch: %+v, %v", tb, err)
	}
	if _, _, err := Resolve(cfg, "main", 2, 0); err == nil || !strings.Contains(err.Error(), "--alpha 2") {
		t.Errorf("alpha 2: %v, want it refused", err)
	}
	_, d, err := Resolve(cfg, "dev", 0.01, 3)
	if err != nil || d.Alpha != 0.01 || d.MinChangePct != 3 {
		t.Errorf("detector options %+v, %v", d, err)
	}
}
