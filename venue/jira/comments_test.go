package jira

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestWikiLines(t *testing.T) {
	text := "Thanks.\r\n/perfbot false-alarm A\n{code:java}\n/perfbot false-alarm B\n{quote}\n{code}\n" +
		"bq. /perfbot false-alarm C\nbefore {quote}/perfbot false-alarm D{quote} after\n{noformat}\n/perfbot false-alarm E\n{noformat}\nlast"
	want := []string{"Thanks.", "/perfbot false-alarm A", "", "", "", "", "before  after", "", "", "", "last"}
	if got := WikiLines(text); !slices.Equal(got, want) {
		t.Errorf("WikiLines = %q, want %q", got, want)
	}
	if got := WikiLines("{code}\n/perfbot false-alarm X"); slices.Contains(got, "/perfbot false-alarm X") {
		t.Errorf("an unclosed code block shown as text: %q", got)
	}
}

func TestADFLines(t *testing.T) {
	const doc = `{"type":"doc","version":1,"content":[
	 {"type":"paragraph","content":[{"type":"mention","attrs":{"id":"5b10a","text":"@perfbot"}},{"type":"text","text":" thanks"},
	   {"type":"hardBreak"},{"type":"text","text":"/perfbot false-alarm "},{"type":"text","text":"Checksum","marks":[{"type":"strong"}]},{"type":"text","text":" -- busy"}]},
	 {"type":"codeBlock","attrs":{"language":"text"},"content":[{"type":"text","text":"/perfbot false-alarm B"}]},
	 {"type":"blockquote","content":[{"type":"paragraph","content":[{"type":"text","text":"/perfbot false-alarm C"}]}]},
	 {"type":"paragraph","content":[{"type":"text","text":"/perfbot false-alarm D","marks":[{"type":"code"}]}]},
	 {"type":"bulletList","content":[{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"item"}]}]}]}]}`
	var n ADFNode
	if err := json.Unmarshal([]byte(doc), &n); err != nil {
		t.Fatal(err)
	}
	want := []string{"@perfbot thanks", "/perfbot false-alarm Checksum -- busy", "", "item"}
	if got := ADFLines(n); !slices.Equal(got, want) {
		t.Errorf("ADFLines = %q, want %q", got, want)
	}
}

// TestSearchComments: a search returns each issue's comments, oldest
// first, as lines of text, perfbot's own told apart: wiki markup from
// Server's /rest/api/2/search, Atlassian Document Format from Cloud's
// /rest/api/3/search/jql; the comments past what the search embeds are
// read from the issue's comment list, on Cloud through REST API v3.
func TestSearchComments(t *testing.T) {
	for _, cloud := range []bool{false, true} {
		f := newFakeJIRA(t)
		f.cloud = cloud
		f.embedMax = 2
		f.issues = []string{"STORE-1", "STORE-2"}
		f.comments = []fakeComment{
			{ID: "100", Author: "alice", Body: "Looks slower.\n{code}\n/perfbot false-alarm Quoted\n{code}", Created: "2026-11-30T10:00:00.000+0100"},
			{ID: "101", Body: "{anchor:perfbot-k}\n/perfbot false-alarm Own"},
			{ID: "102", Author: "bob", Body: "/perfbot false-alarm Checksum -- busy runner"},
		}
		if cloud {
			f.comments[0].ADF = map[string]any{"type": "doc", "version": 1, "content": []any{
				map[string]any{"type": "paragraph", "content": []any{map[string]any{"type": "text", "text": "Looks slower."}}},
				map[string]any{"type": "codeBlock", "content": []any{map[string]any{"type": "text", "text": "/perfbot false-alarm Quoted"}}}}}
		}
		var waits []time.Duration
		c := newClient(t, f, Config{User: f.user, Token: f.token}, &waits)
		got, err := c.Search(context.Background(), "project = STORE", 0)
		if err != nil {
			t.Fatalf("cloud=%v: %v", cloud, err)
		}
		if len(got) != 2 || len(got[1].Comments) != 0 {
			t.Fatalf("cloud=%v: %+v", cloud, got)
		}
		cs := got[0].Comments
		if len(cs) != 3 || cs[0].ID != "100" || cs[2].ID != "102" {
			t.Fatalf("cloud=%v: comments %+v", cloud, cs)
		}
		alice, bob := "alice", "bob"
		if cloud {
			alice, bob = "5b10ac8d82e05b22cc7d4ef5-alice", "5b10ac8d82e05b22cc7d4ef5-bob"
		}
		if cs[0].Author != alice || cs[0].Own || !cs[0].Created.Equal(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)) ||
			strings.Contains(strings.Join(cs[0].Lines, "\n"), "Quoted") || cs[0].Lines[0] != "Looks slower." {
			t.Errorf("cloud=%v: first comment %+v", cloud, cs[0])
		}
		if !cs[1].Own || cs[2].Own || cs[2].Author != bob || !slices.Contains(cs[2].Lines, "/perfbot false-alarm Checksum -- busy runner") {
			t.Errorf("cloud=%v: comments %+v", cloud, cs)
		}
		reqs := strings.Join(f.requests, " ")
		wantPage := "GET /rest/api/2/issue/STORE-1/comment"
		if cloud {
			wantPage = "GET /rest/api/3/issue/STORE-1/comment"
		}
		if !strings.Contains(reqs, wantPage) || strings.Count(reqs, "/comment") != 1 {
			t.Errorf("cloud=%v: requests %v, want one %s for the comment past the embedded two", cloud, f.requests, wantPage)
		}
	}
}

// TestSearchCommentsNoneEmbedded: a search that embeds none of an issue's
// comments, only their count, has them all read from the comment list.
func TestSearchCommentsNoneEmbedded(t *testing.T) {
	f := newFakeJIRA(t)
	f.embedMax = -1
	f.issues = []string{"STORE-1"}
	f.comments = []fakeComment{{ID: "100", Author: "alice", Body: "/perfbot false-alarm Checksum"}}
	var waits []time.Duration
	got, err := newClient(t, f, Config{User: f.user, Token: f.token}, &waits).Search(context.Background(), "project = STORE", 0)
	if err != nil || len(got) != 1 || len(got[0].Comments) != 1 || got[0].Comments[0].Lines[0] != "/perfbot false-alarm Checksum" {
		t.Fatalf("%+v, %v", got, err)
	}
}

func TestCommentBodyErrors(t *testing.T) {
	for _, body := range []string{`42`, `{"type":`, `"unterminated`} {
		_, err := apiComment{ID: "7", Body: json.RawMessage(body)}.comment(identity{})
		if err == nil || !strings.Contains(err.Error(), "comment 7") {
			t.Errorf("body %s: %v", body, err)
		}
	}
}
