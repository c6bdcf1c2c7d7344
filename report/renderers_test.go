package report

import (
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

var (
	tableRE = regexp.MustCompile(`(?s)<table>.*?</table>`)
	rowRE   = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRE  = regexp.MustCompile(`<t[hd][ >]`)
	anyTag  = regexp.MustCompile(`<([a-z][a-z0-9]*)`)
	codeRE  = regexp.MustCompile(`(?s)<code>.*?</code>|<pre>.*?</pre>`)
)

// checkRenderedHTML checks HTML produced by a venue's Markdown renderer
// from the hostile comparison: only the tags the templates ask for, no
// link, and every table row with its header's number of cells.
func checkRenderedHTML(t *testing.T, venue, h string, allowed map[string]bool, refs []string) {
	t.Helper()
	for _, m := range anyTag.FindAllStringSubmatch(h, -1) {
		if !allowed[m[1]] {
			t.Errorf("%s: the rendering holds a <%s> tag", venue, m[1])
		}
	}
	for _, table := range tableRE.FindAllString(h, -1) {
		rows := rowRE.FindAllStringSubmatch(table, -1)
		for _, r := range rows[1:] {
			if got, want := len(cellRE.FindAllString(r[1], -1)), len(cellRE.FindAllString(rows[0][1], -1)); got != want {
				t.Errorf("%s: a row has %d cells, its header %d: %s", venue, got, want, r[1])
			}
		}
	}
	// Outside code, nothing a venue would turn into a mention or reference.
	text := tagRE.ReplaceAllString(codeRE.ReplaceAllString(h, ""), "")
	for _, bad := range refs {
		if strings.Contains(text, bad) {
			t.Errorf("%s: %q survives outside code", venue, bad)
		}
	}
	if !strings.Contains(tagRE.ReplaceAllString(h, ""), "&lt;script&gt;") {
		t.Errorf("%s: the hostile name is not shown as text", venue)
	}
}

// TestGitHubMarkdownRenders renders the hostile comparison's Markdown with
// a GitHub-flavoured Markdown parser (tables, autolinks, strikethrough).
func TestGitHubMarkdownRenders(t *testing.T) {
	md := renderAll(t, hostileComparison(t))["markdown"]
	var b bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(md), &b); err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"h3": true, "p": true, "strong": true, "em": true, "table": true, "thead": true,
		"tbody": true, "tr": true, "th": true, "td": true, "code": true, "pre": true, "ul": true, "li": true, "blockquote": true}
	checkRenderedHTML(t, "markdown", b.String(), allowed, []string{"@org", "@team", "@everyone", "#123", "#1 ", ":smile:"})
	// Raw HTML is only the report's own: <details> sections, the <sub>
	// legend and the <br> under the headline, as many as the Markdown has.
	own := 0
	for _, tag := range []string{"<details>", "</details>", "<sub>", "</sub>", "<br>"} {
		own += strings.Count(md, tag)
	}
	if n := strings.Count(b.String(), "raw HTML omitted"); n > own {
		t.Errorf("want only the report's own tags as raw HTML (%d), got %d blocks:\n%s", own, n, b.String())
	}
}

// TestReviewBoardMarkdownRenders renders the hostile comparison's Review
// Board Markdown with Python-Markdown as Review Board configures it
// (Debian package python3-markdown).
func TestReviewBoardMarkdownRenders(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed (Debian package python3-markdown)")
	}
	if exec.Command(py, "-c", "import markdown").Run() != nil {
		if _, err := exec.LookPath("/usr/bin/python3"); err != nil || exec.Command("/usr/bin/python3", "-c", "import markdown").Run() != nil {
			t.Skip("Python-Markdown is not installed (Debian package python3-markdown)")
		}
		py = "/usr/bin/python3"
	}
	md := renderAll(t, hostileComparison(t))["reviewboard"]
	cmd := exec.Command(py, "testdata/reviewboard/render.py")
	cmd.Stdin = strings.NewReader(md)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("render.py: %v", err)
	}
	allowed := map[string]bool{"h3": true, "h4": true, "p": true, "strong": true, "em": true, "table": true, "thead": true,
		"tbody": true, "tr": true, "th": true, "td": true, "code": true, "pre": true, "ul": true, "li": true, "br": true}
	checkRenderedHTML(t, "reviewboard", string(out), allowed, []string{"bug 234", "/r/583", ":smile:", "http://"})
}
