package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareTemplatesFromConfig: config.yaml's templates folder overrides
// the embedded templates of the same name in compare's output and its
// --out files; a broken one stops compare and config check at their start,
// naming the template's file and line.
func TestCompareTemplatesFromConfig(t *testing.T) {
	config, patch := levelRepo(t)
	dir := filepath.Dir(config)
	if err := os.Mkdir(filepath.Join(dir, "tpl"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, append(data, "templates: tpl\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "tpl", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("text.tmpl", "{{define \"legend\"}}\nLEGEND FROM THE CONFIG'S FOLDER\n{{end}}\n")
	write("markdown.tmpl", "{{define \"legend\"}}\n_house legend_\n{{end}}\n")

	var stdout, stderr bytes.Buffer
	out := t.TempDir()
	err = run(context.Background(), []string{"compare", "--config", config, "--patch", patch, "--no-sandbox",
		"--format", "text", "--out", out, "--cache-dir", t.TempDir(), "-q"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("compare: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "LEGEND FROM THE CONFIG'S FOLDER") || strings.Contains(stdout.String(), "mde:") {
		t.Errorf("text report does not use the folder's legend:\n%s", stdout.String())
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "_house legend_") {
		t.Errorf("report.md does not use the folder's legend:\n%s", md)
	}
	jira, err := os.ReadFile(filepath.Join(out, "report.jira"))
	if err != nil || !strings.Contains(string(jira), "||") {
		t.Errorf("report.jira lost its embedded templates: %v\n%s", err, jira)
	}

	// A broken template: compare refuses before running anything.
	write("jira.tmpl", "{{define \"legend\"}}\n\n{{.Legend | nosuch}}\n{{end}}\n")
	write("digest.tmpl", "{{define \"digest\"}}{{.NoSuchField}}{{end}}\n")
	stdout.Reset()
	stderr.Reset()
	err = run(context.Background(), []string{"compare", "--config", config, "--patch", patch, "--no-sandbox",
		"--cache-dir", t.TempDir(), "-q"}, &stdout, &stderr)
	want := filepath.Join(dir, "tpl", "jira.tmpl") + ":3: templates: function \"nosuch\" not defined"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("compare with a broken template: %v, want %q", err, want)
	}
	if stdout.Len() > 0 {
		t.Errorf("compare wrote a report despite the broken template:\n%s", stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	err = run(context.Background(), []string{"config", "check", config}, &stdout, &stderr)
	for _, w := range []string{want, filepath.Join(dir, "tpl", "digest.tmpl") + ":1: templates: executing \"digest\" at <.NoSuchField>"} {
		if err == nil || !strings.Contains(stderr.String(), w) {
			t.Errorf("config check: %v, stderr lacks %q:\n%s", err, w, stderr.String())
		}
	}

	// A folder that is not there is a config mistake at its line.
	os.RemoveAll(filepath.Join(dir, "tpl"))
	stderr.Reset()
	err = run(context.Background(), []string{"config", "check", config}, &stdout, &stderr)
	if err == nil || !strings.Contains(stderr.String(), config+":") || !strings.Contains(stderr.String(), "templates: expected a folder of templates") {
		t.Errorf("config check without the folder: %v\n%s", err, stderr.String())
	}
}
