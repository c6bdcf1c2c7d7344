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
	for _, args := range [][]string{{"-n", "0"}, {"extra"}, {"-real", "testdata/missing.txt"}, {"-start", "1"}, {"-max", "8"}, {"-methods", "nosuch"}} {
		var out, errb bytes.Buffer
		if err := run(context.Background(), args, &out, &errb); err == nil {
			t.Errorf("run(%q): no error", args)
		}
	}
}

// TestDefaultMeetsTargets holds perfbot's default sampling and verdicts to
// issue 6's targets on simulated suites (seeded, so the figures are the
// same on every run): at most 1 flagged comparison per 100 unchanged ones,
// and at least 90% of 5% slow-downs detected within the runs benchstat's
// 10 samples take; and it must beat 10 fixed rounds at 5%.
func TestDefaultMeetsTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates 50 suites of 50 benchmarks")
	}
	cfg := config{suites: 50, seed: 1, benchmarks: 50, changed: 10, samples: 10, history: 8,
		maxRounds: 40, startRounds: 6, targetPct: 5}
	var ms []method
	for _, m := range allMethods {
		if m.name == "perfbot" || m.name == "perfbot-adaptive" {
			ms = append(ms, m)
		}
	}
	rows, err := evaluate(context.Background(), simulated{}, cfg, ms)
	if err != nil {
		t.Fatal(err)
	}
	fixed, adaptive := rows[0], rows[1]
	flagged := 100 * float64(adaptive.flagged) / float64(adaptive.comparisons)
	t.Logf("adaptive: %.2f flagged/100, detects %.1f%% of 5%% changes; fixed 10 rounds: %.2f, %.1f%%",
		flagged, 100*adaptive.detected[2], 100*float64(fixed.flagged)/float64(fixed.comparisons), 100*fixed.detected[2])
	if flagged > 1 {
		t.Errorf("adaptive flags %.2f per 100 unchanged comparisons, want <= 1", flagged)
	}
	if adaptive.detected[2] < 0.9 {
		t.Errorf("adaptive detects %.1f%% of 5%% changes, want >= 90%%", 100*adaptive.detected[2])
	}
	if adaptive.detected[2] <= fixed.detected[2] {
		t.Errorf("adaptive detects %.1f%% of 5%% changes, no more than 10 fixed rounds (%.1f%%)", 100*adaptive.detected[2], 100*fixed.detected[2])
	}
}

// TestInstrumentsLoad re-reads results the instruments scenario saved on an
// idle 2-core host and checks the table names the file's rounds and draws
// each instrument as measured: cpu-sim's counts repeat within 0.2%, so a
// 5% change is found (and confirmed) in every draw and nothing unchanged is
// flagged, before or after confirmation.
func TestInstrumentsLoad(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"-load", "testdata/instruments-idle.json", "-draws", "20"}, &out, &errb); err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	text := out.String()
	for _, want := range []string{
		"(6 rounds a side; 20 draws per cell)",
		"| walltime | 3 |",
		"| cpu-sim | 3 | 0.14% | 0.0 |",
		"| auto (cpu-sim: wall time on this host varied 11% during the probe",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "| cpu-sim |") || len(cells) != 11 {
			continue
		}
		// instrument, rounds, spread, flagged, 0.5%, 1%, 2%, 5%, flagged before confirmation
		if got := strings.TrimSpace(cells[8]); got != "100%" {
			t.Errorf("cpu-sim detects %s of 5%% changes, want 100%%: %s", got, line)
		}
		if got := strings.TrimSpace(cells[9]); got != "0.0" {
			t.Errorf("cpu-sim flags %s per 100 unchanged before confirmation, want 0.0: %s", got, line)
		}
		return
	}
	t.Errorf("no cpu-sim row:\n%s", text)
}
