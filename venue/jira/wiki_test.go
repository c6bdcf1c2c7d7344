package jira

import (
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/target"
)

// renderWiki renders JIRA wiki markup to HTML by the rules of JIRA's text
// formatting notation help, as far as perfbot's comments use it: a
// heading is "h1. " to "h6. " at the start of a line; "||a||b||" is a
// table's header row and "|a|b|" a row; {code} and {noformat} enclose
// text shown as is; {anchor:NAME} is an invisible link target; !NAME!
// shows an attached image. Anything else is paragraph text.
func renderWiki(s string) string {
	var b strings.Builder
	lines := strings.Split(s, "\n")
	inTable := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := codeOpen.FindStringSubmatch(l); m != nil {
			if inTable {
				b.WriteString("</table>\n")
				inTable = false
			}
			b.WriteString("<pre>")
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "{"+m[1]+"}"; i++ {
				b.WriteString(html.EscapeString(lines[i]) + "\n")
			}
			b.WriteString("</pre>\n")
			continue
		}
		row := strings.HasPrefix(l, "|")
		if inTable && !row {
			b.WriteString("</table>\n")
			inTable = false
		}
		switch {
		case wikiHeading.MatchString(l):
			n := l[1:2]
			fmt.Fprintf(&b, "<h%s>%s</h%s>\n", n, inline(l[4:]), n)
		case row:
			if !inTable {
				b.WriteString("<table>\n")
				inTable = true
			}
			cell, sep := "td", "|"
			if strings.HasPrefix(l, "||") {
				cell, sep = "th", "||"
			}
			b.WriteString("<tr>")
			for _, c := range strings.Split(strings.Trim(l, "|"), sep) {
				fmt.Fprintf(&b, "<%s>%s</%s>", cell, inline(c), cell)
			}
			b.WriteString("</tr>\n")
		case strings.TrimSpace(l) == "":
		default:
			b.WriteString("<p>" + inline(l) + "</p>\n")
		}
	}
	if inTable {
		b.WriteString("</table>\n")
	}
	return b.String()
}

var (
	wikiHeading = regexp.MustCompile(`^h[1-6]\. `)
	codeOpen    = regexp.MustCompile(`^\s*\{(code|noformat)(?::[^}]*)?\}\s*$`)
	anchorRE    = regexp.MustCompile(`\{anchor:([^}]*)\}`)
	imageRE     = regexp.MustCompile(`!([^!|\s]+)(?:\|[^!]*)?!`)
)

func inline(s string) string {
	s = html.EscapeString(s)
	s = anchorRE.ReplaceAllString(s, `<a name="$1"></a>`)
	return imageRE.ReplaceAllString(s, `<img src="$1">`)
}

// TestCommentRenders: perfbot's comments, built from the report's JIRA
// renderings, render as JIRA renders wiki markup: the heading is a
// heading (the marker does not precede it on its line), the marker is an
// anchor, tables are tables and the charts are shown.
func TestCommentRenders(t *testing.T) {
	files, _ := filepath.Glob("../../report/testdata/golden/*.jira")
	if len(files) == 0 {
		t.Fatal("no JIRA renderings in report/testdata/golden")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		msg := answer.Answer{Key: "jira:STORE-1/attachment/7", Attachments: []answer.Attachment{{Name: "wal-threads.png", ContentType: "image/png", Data: []byte("png")}, {Name: "perfbot-results.json", ContentType: "application/json"}}, Renderings: map[answer.Format]answer.Rendering{answer.JIRAWiki: {Full: string(data)}}}
		out := renderWiki(CommentBody(msg))
		first, _, _ := strings.Cut(string(data), "\n")
		want := "<h3>" + inline(first[len("h3. "):]) + "</h3>"
		if !strings.HasPrefix(first, "h3. ") || !strings.Contains(out, want) {
			t.Errorf("%s: heading not rendered; want %s in:\n%.400s", f, want, out)
		}
		if strings.Contains(out, "h3. ") {
			t.Errorf("%s: heading markup shown as text:\n%.400s", f, out)
		}
		if !strings.Contains(out, `<a name="perfbot-jira_STORE-1_attachment_7"></a>`) || !strings.Contains(out, "<table>") || !strings.Contains(out, `<img src="wal-threads.png">`) {
			t.Errorf("%s: anchor, table or chart missing:\n%s", f, out)
		}
		if strings.Contains(out, "perfbot-results.json") {
			t.Errorf("%s: a non-image attachment is shown as an image", f)
		}
	}
	// The old layout, marker and heading on one line, does not render the
	// heading: the renderer is strict enough to tell.
	if out := renderWiki("{anchor:perfbot-k}h3. perfbot: x\n"); strings.Contains(out, "<h3>") {
		t.Errorf("heading after the marker rendered: %s", out)
	}
}

// TestRerunReplacesAttachments: a rerun uploads the new files and deletes
// perfbot's earlier ones of the same names; a retry with identical files
// uploads nothing; a file of the same name attached by someone else stays.
func TestRerunReplacesAttachments(t *testing.T) {
	for _, cloud := range []bool{false, true} {
		f := newFakeJIRA(t)
		f.cloud = cloud
		f.attachments = []fakeAttachment{{ID: "9", Filename: "wal.png", MimeType: "image/png", Data: []byte("someone's"), Author: "alice"}}
		var waits []time.Duration
		c := newClient(t, f, Config{User: f.user, Token: f.token}, &waits)
		ctx := context.Background()
		run := func(chart string) answer.Answer {
			m := message("job-1", "h3. perfbot: 1 better\nbody\n")
			m.Attachments = append(m.Attachments, answer.Attachment{Name: "wal.png", ContentType: "image/png", Data: []byte(chart)})
			return m
		}
		for _, m := range []answer.Answer{run("chart one"), run("chart one"), run("chart two!")} {
			if _, err := c.Post(ctx, target.MustParse("jira:STORE-1"), m); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		uploads := 0
		for _, a := range f.attachments {
			got = append(got, a.Filename+"="+string(a.Data))
		}
		for _, r := range f.requests {
			if strings.HasPrefix(r, "POST /rest/api/2/issue/STORE-1/attachments") {
				uploads++
			}
		}
		want := `wal.png=someone's results.json={"a":1} wal.png=chart two!`
		if strings.Join(got, " ") != want || uploads != 3 {
			t.Errorf("cloud=%v: attachments %q after %d uploads; want %q after 3", cloud, got, uploads, want)
		}
		if body := f.comments[0].Body; !strings.HasPrefix(body, "h3. perfbot: 1 better\n{anchor:perfbot-job-1}\nbody\n") || !strings.Contains(body, "\n!wal.png!\n") {
			t.Errorf("cloud=%v: body %q", cloud, body)
		}
	}
}
