package report

import (
	"bytes"
	"context"
	stdhtml "html"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/parse"
	"github.com/perfbot/perfbot/provenance"
)

// quickstartComparison compares the quickstart's real benchmark output:
// examples/wal before and after buffered-append.patch.
func quickstartComparison(t *testing.T) *compare.Comparison {
	t.Helper()
	var rs []*bench.Result
	for _, side := range []string{"base", "patch"} {
		path := filepath.Join("testdata", "quickstart", "wal-"+side+".txt")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		err = parse.GoBench{}.Parse(context.Background(), bytes.NewReader(data), path, func(r *bench.Result) error {
			r.Variant = side
			rs = append(rs, r)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	cmp, err := compare.Compare(rs, compare.Options{Base: "base"})
	if err != nil {
		t.Fatal(err)
	}
	cmp.Provenance.Sides = []provenance.Side{{Variant: "base", Ref: "HEAD", Commit: "4f2ec4256226a65660e7c285c56dd03e486d8f9a"},
		{Variant: "patch", Ref: "HEAD", Commit: "0f4ccfdbf300296d2d0fbe8397a924aff73611e1", Patch: "examples/wal/buffered-append.patch",
			PatchSubject: "wal: buffer appends in a 64 KiB writer"}}
	return cmp
}

// TestGoldenQuickstart renders the quickstart's comparison in every format
// and checks what a reviewer sees first: the headline with the largest
// change and its metric, a change from zero as a difference, the units
// side by side.
func TestGoldenQuickstart(t *testing.T) {
	cmp := quickstartComparison(t)
	for _, format := range AllFormats {
		var b strings.Builder
		if err := Render(&b, format, cmp); err != nil {
			t.Fatal(err)
		}
		golden(t, filepath.Join("testdata", "golden", "quickstart"+formatExt[format]), b.String())
		if format == "json" {
			continue
		}
		out := b.String()
		first := strings.SplitN(out, "\n", 2)[0]
		if format == "html" {
			first = stdhtml.UnescapeString(out)
		}
		for _, want := range []string{"Append", "% time", "+8 B/op", "+1 alloc"} {
			if !strings.Contains(first, want) {
				t.Errorf("%s: the headline %.200q lacks %q", format, first, want)
			}
		}
		if strings.Contains(out, "**?**") || strings.Contains(out, "|?|") {
			t.Errorf("%s: a change from zero shows as ?", format)
		}
	}
}

// TestScreenshots renders the quickstart's GitHub Markdown through goldmark
// (GFM, raw HTML kept as GitHub keeps <details> and <sub>) and its HTML
// rendering, and takes headless Chromium screenshots of both into
// $PERFBOT_TEST_ARTIFACTS/report (a temporary folder when unset), so a person can look
// at them. It skips without Chromium.
func TestScreenshots(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (Debian package chromium)")
	}
	dir := t.TempDir()
	if a := os.Getenv("PERFBOT_TEST_ARTIFACTS"); a != "" {
		dir = filepath.Join(a, "report")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmp := quickstartComparison(t)
	var md, page bytes.Buffer
	if err := Render(&md, "markdown", cmp); err != nil {
		t.Fatal(err)
	}
	page.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{font-family:sans-serif;font-size:14px;margin:16px}td,th{border:1px solid #d1d9e0;padding:4px 8px}table{border-collapse:collapse}</style></head><body>`)
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe())).Convert(md.Bytes(), &page); err != nil {
		t.Fatal(err)
	}
	page.WriteString("</body></html>")
	var mail bytes.Buffer
	if err := Render(&mail, "html", cmp); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"quickstart-github": page.Bytes(), "quickstart-mail": mail.Bytes()} {
		src := filepath.Join(dir, name+".html")
		png := filepath.Join(dir, name+".png")
		if err := os.WriteFile(src, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
			"--window-size=1100,800", "--screenshot="+png, "file://"+src)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("chromium: %v\n%s", err, out)
		}
		shot, err := os.ReadFile(png)
		if err != nil || len(shot) < 5000 || !bytes.HasPrefix(shot, []byte("\x89PNG")) {
			t.Errorf("%s: no screenshot (%v, %d bytes)", png, err, len(shot))
		}
		t.Logf("screenshot: %s", png)
	}
	if !strings.Contains(page.String(), "<details>") || !strings.Contains(page.String(), "sec/op</th>") {
		t.Errorf("the GitHub rendering lacks its units table or its folded details:\n%.600s", page.String())
	}
}
