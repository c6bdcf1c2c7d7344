package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestRun runs a tiny evaluation end to end and checks the table's shape.
func TestRun(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"-n", "1", "-seed", "3", "-real", "testdata/sort.txt"}, &out, &errb)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	text := out.String()
	for _, want := range []string{"1 suites of 50 benchmarks", "simulated", "real:sort", "benchstat", "perfbot-history", "sigma<1.5%"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	// The same seed gives the same table.
	var again bytes.Buffer
	if err := run(context.Background(), []string{"-n", "1", "-seed", "3", "-real", "testdata/sort.txt"}, &again, &errb); err != nil {
		t.Fatal(err)
	}
	if again.String() != text {
		t.Errorf("same seed, different tables:\n%s\n%s", text, again.String())
	}
}

func TestRunErrors(t *testing.T) {
	for _, args := range [][]string{{"-n", "0"}, {"extra"}, {"-real", "testdata/missing.txt"}} {
		var out, errb bytes.Buffer
		if err := run(context.Background(), args, &out, &errb); err == nil {
			t.Errorf("run(%q): no error", args)
		}
	}
}
