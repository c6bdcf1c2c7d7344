package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTemplateOverride checks that a user folder redefines single blocks
// and keeps the others.
func TestTemplateOverride(t *testing.T) {
	cmp, _ := loadSeed(t, "hbase-wal")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "markdown.tmpl"), `{{define "sweep"}}SWEEP OF {{md (index .Params 0)}}: {{len .Lines}} lines
{{end}}`)
	writeFile(t, filepath.Join(dir, "jira", "10-provenance.tmpl"), `{{define "provenance"}}no provenance here{{end}}`)
	tests := []struct {
		format       string
		want, absent []string
	}{
		{"markdown", []string{"SWEEP OF threads: 8 lines", "`context-switches`", "<details><summary>Provenance"}, []string{"| Threads |"}},
		{"jira", []string{"no provenance here", "||Threads||Default||Async||Diff||"}, []string{"h4. Provenance"}},
		{"text", []string{"threads  default  async  diff"}, nil},
	}
	for _, tc := range tests {
		var b strings.Builder
		if err := RenderWith(&b, tc.format, cmp, Options{TemplateDir: dir}); err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s with overrides lacks %q:\n%s", tc.format, w, b.String())
			}
		}
		for _, a := range tc.absent {
			if strings.Contains(b.String(), a) {
				t.Errorf("%s with overrides still has %q", tc.format, a)
			}
		}
	}
}

// TestTemplateErrors checks that parse and execution errors come back,
// naming the file.
func TestTemplateErrors(t *testing.T) {
	cmp, _ := loadSeed(t, "hbase-cache")
	tests := []struct {
		name, file, text, want string
	}{
		{"parse", "text.tmpl", `{{define "table"}}{{if}}{{end}}`, "text.tmpl"},
		{"unknown function", "markdown.tmpl", `{{define "table"}}{{nosuch .}}{{end}}`, "nosuch"},
		{"execution", "jira.tmpl", `{{define "table"}}{{.NoSuchField}}{{end}}`, "NoSuchField"},
		{"html execution", "html.tmpl", `{{define "table"}}{{template "missing" .}}{{end}}`, "missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, tc.file), tc.text)
			format := strings.TrimSuffix(tc.file, ".tmpl")
			err := RenderWith(&strings.Builder{}, format, cmp, Options{TemplateDir: dir})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming %q", err, tc.want)
			}
			if _, err := Message(cmp, Options{TemplateDir: dir, NoCharts: true}); err == nil {
				t.Errorf("Message swallowed the template error")
			}
		})
	}
}

func TestUnknownFormat(t *testing.T) {
	cmp, _ := loadSeed(t, "hbase-cache")
	err := Render(&strings.Builder{}, "docx", cmp)
	if err == nil || !strings.Contains(err.Error(), "reviewboard") {
		t.Fatalf("err = %v, want the list of formats", err)
	}
}
