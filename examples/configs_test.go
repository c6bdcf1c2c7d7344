package examples

import (
	"strings"
	"testing"

	"github.com/perfbot/perfbot/config"
)

// TestConfigsValidate checks, without running anything, that every example
// config loads and declares the variants its test expects.
func TestConfigsValidate(t *testing.T) {
	tests := []struct {
		file, preset, variants string
	}{
		{"wal-sweep.yaml", "pgbench", "sync,async"},
		{"cache-config.yaml", "redis-benchmark", "appendonly-no,fsync-always"},
		{"ycsb-release.yaml", "ycsb", "badger-v1.5.3,badger-v1.5.4"},
		{"store-patch.yaml", "go", "scan,index"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c, err := config.Load(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Suites) != 1 {
				t.Fatalf("%d suites, want 1", len(c.Suites))
			}
			s := c.Suites[0]
			if s.Preset != tt.preset {
				t.Errorf("preset %q, want %q", s.Preset, tt.preset)
			}
			if got := strings.Join(s.Variants.Names(), ","); got != tt.variants {
				t.Errorf("variants %s, want %s", got, tt.variants)
			}
			if s.Preset != "go" && s.Command == "" {
				t.Errorf("the %s preset left the command empty", s.Preset)
			}
		})
	}
}
