package config

import (
	"strings"
	"testing"
	"time"
)

// TestUnknownFieldsNameTheirLine checks that a misspelt key anywhere in a
// suite is reported at its own line of the file.
func TestUnknownFieldsNameTheirLine(t *testing.T) {
	for _, c := range []struct {
		name, yaml, want string
	}{
		{"suite field", "suites:\n  x:\n    command: run\n    cout: 3\n", "c.yaml:4:5: suites.x.cout: unknown key; did you mean count?"},
		{"nested go option", "suites:\n  x:\n    preset: go\n    go:\n      packges: ./x\n", "c.yaml:5:7: suites.x.go.packges: unknown key; did you mean packages?"},
		{"top level", "project:\n  repo: .\nsuits: {}\n", "c.yaml:3:1: suits: unknown key; did you mean suites?"},
		{"bad duration", "suites:\n  x:\n    command: run\n    timeout: soon\n", `c.yaml:4:14: suites.x.timeout: expected a duration such as 30s, 10m or 1h, got "soon"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml), "c.yaml")
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "c.yaml") {
				t.Errorf("err = %v, want it to start with the file and contain %q", err, c.want)
			}
		})
	}
}

func TestBudget(t *testing.T) {
	for _, c := range []struct {
		text string
		want Budget
	}{
		{"10x", Budget{Rounds: 10}},
		{"90s", Budget{Time: 90 * time.Second}},
		{"1h30m", Budget{Time: 90 * time.Minute}},
	} {
		cfg, err := Parse([]byte("suites:\n  x:\n    command: run\n    count: 3\n    budget: "+c.text+"\n"), "c.yaml")
		if err != nil {
			t.Fatalf("budget %s: %v", c.text, err)
		}
		if got := cfg.Suites[0].Budget; got != c.want || got.String() != c.want.String() {
			t.Errorf("budget %s = %+v (%s), want %+v", c.text, got, got, c.want)
		}
	}
	for _, c := range []struct{ text, want string }{
		{"ten", "c.yaml:5:13: suites.x.budget: \"ten\" is not a budget"},
		{"0x", "positive round count"},
		{"-5m", "positive round count"},
		{"2x", "budget 2x must be at least count (3)"},
	} {
		_, err := Parse([]byte("suites:\n  x:\n    command: run\n    count: 3\n    budget: "+c.text+"\n"), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("budget %s: err = %v, want it to contain %q", c.text, err, c.want)
		}
	}
	var b Budget
	if err := b.Set("12x"); err != nil || b.Rounds != 12 {
		t.Errorf("Set(12x) = %+v, %v", b, err)
	}
}

// TestTopLevelVariants: a suite without variants of its own compares the
// top-level ones; a suite with its own keeps them.
func TestTopLevelVariants(t *testing.T) {
	cfg, err := Parse([]byte(`variants:
  onheap: {args: "-Dhbase.bucketcache.ioengine=heap"}
  offheap: {args: "-Dhbase.bucketcache.ioengine=offheap"}
suites:
  randomread:
    command: run {threads}
    matrix: {threads: [1, 100]}
  scan:
    command: scan
    variants:
      small: {env: {ROWS: "10"}}
      large: {env: {ROWS: "1000"}}
`), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, s := range cfg.Suites {
		got[s.Name] = s.Variants.Names()
	}
	if strings.Join(got["randomread"], ",") != "onheap,offheap" || strings.Join(got["scan"], ",") != "small,large" {
		t.Errorf("variants per suite: %v", got)
	}
	if _, err := Parse([]byte("variants: [a, b]\nsuites:\n  x:\n    command: run\n"), "c.yaml"); err == nil || !strings.Contains(err.Error(), "c.yaml:1:11: variants: expected a mapping") {
		t.Errorf("variants as a list: err = %v, want one naming line 1, column 11", err)
	}
}
