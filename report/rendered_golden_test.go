package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// goldenNames are the golden renderings reviewed as rendered: the seeds'
// shapes and the quickstart.
func goldenNames() []string { return append(append([]string(nil), seedNames...), "quickstart") }

// artifactDir is $PERFBOT_TEST_ARTIFACTS/report/rendered, where rendered
// goldens and their screenshots are kept for a person to look at, or a
// temporary folder when unset.
func artifactDir(t *testing.T) string {
	t.Helper()
	a := os.Getenv("PERFBOT_TEST_ARTIFACTS")
	if a == "" {
		return t.TempDir()
	}
	dir := filepath.Join(a, "report", "rendered")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readGolden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	tagRE2       = regexp.MustCompile(`<[^>]*>`)
	mdLeftovers  = regexp.MustCompile(`\|\s*-{3,}\s*\||\*\*|\\[\\` + "`" + `*_{}\[\]()#+\-.!|<>~]|^#{1,6} `)
	detailsBlock = regexp.MustCompile(`(?s)<details>.*?</details>`)
)

// checkRenderedMarkdown checks a Markdown renderer's HTML of a golden: the
// headline is the first paragraph, every table row has its header's number
// of cells, and no Markdown syntax or escaping backslash shows as text
// outside code.
func checkRenderedMarkdown(t *testing.T, what, h string) {
	t.Helper()
	first := strings.Index(h, "<")
	if first < 0 || !(strings.HasPrefix(h[first:], "<p>") || strings.HasPrefix(h[first:], "<h3>")) {
		t.Errorf("%s: does not open with the headline: %.120q", what, h)
	}
	tables := tableRE.FindAllString(h, -1)
	if len(tables) == 0 {
		t.Errorf("%s: no table", what)
	}
	for _, table := range tables {
		rows := rowRE.FindAllStringSubmatch(table, -1)
		for _, r := range rows[1:] {
			if got, want := len(cellRE.FindAllString(r[1], -1)), len(cellRE.FindAllString(rows[0][1], -1)); got != want {
				t.Errorf("%s: a row has %d cells, its header %d: %s", what, got, want, r[1])
			}
		}
	}
	text := codeRE.ReplaceAllString(h, "")
	for _, line := range strings.Split(text, "\n") {
		plain := tagRE2.ReplaceAllString(line, "")
		if m := mdLeftovers.FindString(plain); m != "" {
			t.Errorf("%s: Markdown shows as text (%q) in %q", what, m, plain)
		}
	}
}

// TestGoldenGitHubRendered renders every golden GitHub Markdown file with
// goldmark's GitHub-flavoured Markdown, raw HTML kept as GitHub keeps
// <details> and <sub>, checks what a reader sees and keeps the pages.
func TestGoldenGitHubRendered(t *testing.T) {
	dir := artifactDir(t)
	md := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	for _, name := range goldenNames() {
		src := readGolden(t, name+".md")
		var b bytes.Buffer
		if err := md.Convert([]byte(src), &b); err != nil {
			t.Fatal(err)
		}
		h := b.String()
		checkRenderedMarkdown(t, name+".md", h)
		// Raw HTML is the report's own only: <details>, <summary>, <sub>, <br>.
		for _, m := range anyTag.FindAllStringSubmatch(detailsBlock.ReplaceAllString(h, ""), -1) {
			switch m[1] {
			case "p", "h3", "strong", "em", "table", "thead", "tbody", "tr", "th", "td", "code", "pre", "ul", "li", "sub", "br", "summary", "details", "blockquote", "del", "a":
			default:
				t.Errorf("%s.md: renders a <%s>", name, m[1])
			}
		}
		if strings.Count(h, "<details>") != strings.Count(h, "</details>") {
			t.Errorf("%s.md: <details> not closed", name)
		}
		writePage(t, dir, name+"-github", h)
	}
}

// TestGoldenReviewBoardRendered renders every golden Review Board file with
// Python-Markdown as Review Board configures it (Debian python3-markdown):
// no raw HTML reaches the page, tables are tables.
func TestGoldenReviewBoardRendered(t *testing.T) {
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import markdown").Run() != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("Python-Markdown is missing: CI must install the Debian package python3-markdown")
		}
		t.Skip("Python-Markdown is not installed (Debian package python3-markdown)")
	}
	dir := artifactDir(t)
	for _, name := range goldenNames() {
		src := readGolden(t, name+".rb.md")
		cmd := exec.Command(py, "-m", "markdown", "-x", "fenced_code", "-x", "sane_lists", "-x", "nl2br", "-x", "tables")
		cmd.Stdin = strings.NewReader(src)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("python3 -m markdown: %v", err)
		}
		h := string(out)
		checkRenderedMarkdown(t, name+".rb.md", h)
		if strings.Contains(src, "<details") || strings.Contains(src, "<sub>") || strings.Contains(src, "<br>") {
			t.Errorf("%s.rb.md: raw HTML, which Review Board shows as text", name)
		}
		writePage(t, dir, name+"-reviewboard", h)
	}
}

// wikiMacro is a JIRA macro perfbot writes ({code}, {noformat},
// {expand[:title]}, {color:c}, {anchor:name}) or {{monospaced text}}.
var wikiMacro = regexp.MustCompile(`\{\{[^{}]*\}\}|\{(code|noformat|expand|color|anchor)(:[^{}]*)?\}`)

// wikiLink is [text|url] or [url].
var wikiLink = regexp.MustCompile(`\[[^\[\]|]*\|?(https?://|#|mailto:)[^\[\]]*\]`)

// TestGoldenJIRARendered checks every golden JIRA file against the rules of
// JIRA's text formatting notation: a table is "||h||h||" then "|c|c|" rows
// with as many cells; {code}, {noformat} and {expand} blocks close; a
// heading is "hN. " at a line's start; outside code and noformat, "{" only
// opens a known macro or {{monospace}}, "[" only a link, and "!" pairs only show an image,
// unless escaped with a backslash.
func TestGoldenJIRARendered(t *testing.T) {
	for _, name := range goldenNames() {
		src := readGolden(t, name+".jira")
		what := name + ".jira"
		if !regexp.MustCompile(`^h[1-6]\. \S`).MatchString(src) {
			t.Errorf("%s: does not open with a heading: %.80q", what, src)
		}
		open := map[string]int{}
		inBlock := ""
		header := -1 // cells of the current table's header row
		for i, line := range strings.Split(src, "\n") {
			at := func() string { return what + ":" + itoa(i+1) }
			trimmed := strings.TrimSpace(line)
			if inBlock != "" {
				if trimmed == "{"+inBlock+"}" {
					inBlock = ""
				}
				continue
			}
			for _, b := range []string{"code", "noformat"} {
				if trimmed == "{"+b+"}" || strings.HasPrefix(trimmed, "{"+b+":") {
					inBlock = b
				}
			}
			if inBlock != "" {
				continue
			}
			open["expand"] += strings.Count(line, "{expand:") + strings.Count(line, "{expand}")
			switch {
			case strings.HasPrefix(line, "||"):
				header = wikiCells(line)
			case strings.HasPrefix(line, "|") && header >= 0:
				if n := wikiCells(line); n != header {
					t.Errorf("%s: a row of %d cells under a header of %d: %s", at(), n, header, line)
				}
			case strings.HasPrefix(line, "|"):
				// a table without header (the overall line): its own count
				header = -1
			default:
				header = -1
			}
			plain := strings.ReplaceAll(line, `\{`, "")
			plain = strings.ReplaceAll(plain, `\[`, "")
			plain = strings.ReplaceAll(plain, `\!`, "")
			plain = wikiMacro.ReplaceAllString(plain, "")
			plain = wikiLink.ReplaceAllString(plain, "")
			if strings.ContainsAny(plain, "{}") {
				t.Errorf("%s: a brace JIRA would read as a macro: %s", at(), line)
			}
			if strings.Contains(plain, "[") {
				t.Errorf("%s: a bracket JIRA would read as a link: %s", at(), line)
			}
			if regexp.MustCompile(`![^\s!|]+!`).MatchString(plain) {
				t.Errorf("%s: text JIRA would read as an image: %s", at(), line)
			}
		}
		if inBlock != "" {
			t.Errorf("%s: {%s} not closed", what, inBlock)
		}
		if open["expand"]%2 != 0 {
			t.Errorf("%s: {expand} not closed", what)
		}
	}
}

// wikiCells counts a table row's cells: "||a||b||" and "|a|b|" have two.
// A cell's "|" inside a link or escaped does not count.
func wikiCells(line string) int {
	line = wikiLink.ReplaceAllString(strings.ReplaceAll(line, `\|`, ""), "L")
	line = wikiMacro.ReplaceAllString(line, "M")
	line = strings.ReplaceAll(strings.TrimSpace(line), "||", "|")
	return strings.Count(line, "|") - 1
}

func itoa(i int) string { return strconv.Itoa(i) }

// writePage keeps a rendered golden as a page and, with Chromium, its
// screenshot, for a person to review.
func writePage(t *testing.T, dir, name, body string) {
	t.Helper()
	page := `<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{font-family:sans-serif;font-size:14px;margin:16px}td,th{border:1px solid #d1d9e0;padding:4px 8px}table{border-collapse:collapse}</style></head><body>` + body + "</body></html>"
	src := filepath.Join(dir, name+".html")
	if err := os.WriteFile(src, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	screenshot(t, src, filepath.Join(dir, name+".png"))
}

// screenshot takes a headless Chromium screenshot of the page src into
// png when $PERFBOT_TEST_ARTIFACTS asks for artifacts (CI sets it): a
// person reviews them there, and a Chromium start per page is too slow
// for every local run. Without Chromium it does nothing (TestScreenshots
// says so).
func screenshot(t *testing.T, src, png string) {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil || os.Getenv("PERFBOT_TEST_ARTIFACTS") == "" {
		return
	}
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--window-size=1100,900", "--screenshot="+png, "file://"+src)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	shot, err := os.ReadFile(png)
	if err != nil || len(shot) < 5000 || !bytes.HasPrefix(shot, []byte("\x89PNG")) {
		t.Errorf("%s: no screenshot (%v, %d bytes)", png, err, len(shot))
	}
}

// TestGoldenHTMLScreenshots takes a headless Chromium screenshot of every
// golden HTML rendering (a mail's HTML part) into the artifacts folder.
func TestGoldenHTMLScreenshots(t *testing.T) {
	if os.Getenv("PERFBOT_TEST_ARTIFACTS") == "" {
		t.Skip("PERFBOT_TEST_ARTIFACTS is not set: no screenshots to keep")
	}
	if _, err := exec.LookPath("chromium"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is missing: CI must install the Debian package chromium")
		}
		t.Skip("chromium is not installed (Debian package chromium)")
	}
	dir := artifactDir(t)
	for _, name := range goldenNames() {
		src := filepath.Join(dir, name+"-mail.html")
		if err := os.WriteFile(src, []byte(readGolden(t, name+".html")), 0o644); err != nil {
			t.Fatal(err)
		}
		screenshot(t, src, filepath.Join(dir, name+"-mail.png"))
	}
}
