package job

import (
	"strings"
	"testing"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/store"
)

func TestStoreOf(t *testing.T) {
	cfg := &config.Config{}
	cfg.Store.Driver, cfg.Store.Path = store.SQLite, "/var/lib/perfbot/perfbot.db"
	for _, tc := range []struct {
		cfg                 *config.Config
		db, driver, wantDSN string
	}{
		{cfg, "", store.SQLite, cfg.StoreDSN()},
		{cfg, "postgres://db/perfbot", store.Postgres, "postgres://db/perfbot"},
		{nil, "h.db", store.SQLite, "h.db"},
	} {
		if d, dsn := StoreOf(tc.cfg, tc.db); d != tc.driver || dsn != tc.wantDSN {
			t.Errorf("StoreOf(%q) = %s %s, want %s %s", tc.db, d, dsn, tc.driver, tc.wantDSN)
		}
	}
}

func TestCheckTuning(t *testing.T) {
	if err := (Options{}).CheckTuning([]string{"wal"}); err == nil || !strings.Contains(err.Error(), "--suite needs --config") {
		t.Errorf("a suite without a config: %v", err)
	}
	o := Options{Tune: Tuning{Instrument: "sundial"}}
	if err := o.CheckTuning(nil); err == nil || !strings.HasPrefix(err.Error(), "--") {
		t.Errorf("an unknown instrument: %v", err)
	}
	if err := (Options{Tune: Tuning{Instrument: "walltime"}}).CheckTuning(nil); err != nil {
		t.Errorf("walltime: %v", err)
	}
}
