package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fiveMistakes has five different mistakes, each on its own line: a
// misspelt venue key, a regexp that does not compile, a time zone that
// does not exist, a cron spec with four fields and a schedule naming a
// suite the file lacks.
const fiveMistakes = `project: {repo: .}
suites:
  wal:
    preset: go
    go:
      bench: Append([
venues:
  github:
    repo: acme/store
    tokn_env: GITHUB_TOKEN
schedules:
  - cron: "0 3 * *"
    run: [wal]
  - cron: "0 8 * * MON-FRI"
    tz: Mars/Olympus
    run: [wal, cache]
`

// TestConfigCheckEveryMistake drives "perfbot config check" on a file with
// five mistakes: each is printed as FILE:LINE:COL with what was expected,
// and the exit status is 1.
func TestConfigCheckEveryMistake(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(file, []byte(fiveMistakes), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	err := runCLI(t, []string{"config", "check", file}, &out, &errOut)
	if code := exitCode(err, &errOut); code != 1 {
		t.Fatalf("exit status %d, want 1; stderr:\n%s", code, errOut.String())
	}
	want := []string{
		file + `:6:14: suites.wal.go.bench: expected a regular expression: missing closing ]: ` + "`[`",
		file + `:10:5: venues.github.tokn_env: unknown key; did you mean token_env?`,
		file + `:12:11: schedules[0].cron: cron "0 3 * *": want 5 fields`,
		file + `:15:9: schedules[1].tz: unknown time zone "Mars/Olympus"`,
		file + `:16:16: schedules[1].run[1]: no suite "cache" in suites (known: wal)`,
	}
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	placed := regexp.MustCompile(`^` + regexp.QuoteMeta(file) + `:\d+:\d+: `)
	var errs []string
	for _, l := range lines {
		if placed.MatchString(l) {
			errs = append(errs, l)
		}
	}
	if len(errs) != len(want) {
		t.Fatalf("%d placed errors, want %d:\n%s", len(errs), len(want), errOut.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(errs[i], w) {
			t.Errorf("error %d:\n got %s\nwant %s...", i+1, errs[i], w)
		}
	}
	if !strings.Contains(errOut.String(), "5 errors") {
		t.Errorf("stderr does not count the errors:\n%s", errOut.String())
	}
}

// TestConfigCheckTranslatesTypes checks that decoder errors read as what
// was expected, and that a good file passes with its secrets' sources.
func TestConfigCheckTranslatesTypes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "types.yaml")
	os.WriteFile(bad, []byte("suites:\n  x:\n    command: run\n    count: abc\n    perf_stat: maybe\nsandbox: {memory: lots}\nservice: {heartbeat: 5}\n"), 0o644)
	var out, errOut bytes.Buffer
	err := runCLI(t, []string{"config", "check", bad}, &out, &errOut)
	if exitCode(err, &errOut) != 1 {
		t.Fatalf("err = %v", err)
	}
	for _, w := range []string{
		bad + `:4:12: suites.x.count: expected a whole number, got "abc"`,
		bad + `:5:16: suites.x.perf_stat: expected true or false, got "maybe"`,
		bad + `:6:19: sandbox.memory: expected a size such as 512MiB`,
		bad + `:7:22: service.heartbeat: expected a duration such as 30s, 10m or 1h, got "5"`,
	} {
		if !strings.Contains(errOut.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut.String())
		}
	}
	if strings.Contains(errOut.String(), "!!") || strings.Contains(errOut.String(), "unmarshal") {
		t.Errorf("stderr shows the decoder's words:\n%s", errOut.String())
	}

	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("suites:\n  x: {command: run}\nvenues:\n  github: {repo: acme/store, token_file: /etc/perfbot/github-token}\n"), 0o644)
	if err := runCLI(t, []string{"config", "check", good}, &out, &errOut); err != nil {
		t.Fatalf("good config: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "ok (1 suites") || !strings.Contains(out.String(), "venues.github.token_file: from file /etc/perfbot/github-token") {
		t.Errorf("stdout:\n%s", out.String())
	}
}

// TestServeRefusesWhatCheckRejects: serve reads the config with the same
// function as config check and stops before opening anything.
func TestServeRefusesWhatCheckRejects(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bad.yaml")
	os.WriteFile(file, []byte(fiveMistakes), 0o644)
	var out, errOut bytes.Buffer
	err := runCLI(t, []string{"serve", "--config", file, "--db", filepath.Join(dir, "p.db"), "--listen", "127.0.0.1:0"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "tokn_env: unknown key; did you mean token_env?") {
		t.Fatalf("serve on a bad config: %v", err)
	}
	if _, statErr := os.Stat(filepath.Join(dir, "p.db")); statErr == nil {
		t.Errorf("serve opened its store before refusing the config")
	}
}

func TestVersionText(t *testing.T) {
	var out, errOut bytes.Buffer
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if err := runCLI(t, args, &out, &errOut); err != nil || !strings.HasPrefix(out.String(), "perfbot ") || !strings.Contains(out.String(), " go1.") {
			t.Errorf("%v: %v, %q", args, err, out.String())
		}
	}
}
