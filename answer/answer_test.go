package answer

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFitPicksFullThenShort(t *testing.T) {
	var a Answer
	a.Set(MarkdownGFM, Rendering{Full: strings.Repeat("x", 100), Short: "short"})
	size := utf8.RuneCountInString
	if got, ok := a.Fit(MarkdownGFM, 100, size); !ok || len(got) != 100 {
		t.Errorf("room 100: got %d characters, ok %v; want the full rendering", len(got), ok)
	}
	if got, ok := a.Fit(MarkdownGFM, 99, size); !ok || got != "short" {
		t.Errorf("room 99: got %q, ok %v; want the short rendering", got, ok)
	}
	if got, ok := a.Fit(MarkdownGFM, 3, size); ok || got != "short" {
		t.Errorf("room 3: got %q, ok %v; want the short rendering, not fitting", got, ok)
	}
	if got := a.Short(JIRAWiki); got != "" {
		t.Errorf("absent format: %q", got)
	}
	a.Set(Text, Rendering{Full: "text"})
	if a.Short(Text) != "text" {
		t.Errorf("Short without a short rendering = %q, want the full one", a.Short(Text))
	}
}

func TestSetAndMapCopy(t *testing.T) {
	var a Answer
	a.Set(Text, Rendering{Full: "secret"})
	b := a
	b.Set(Text, Rendering{Full: "other"})
	c := a.Map(func(s string) string { return strings.ReplaceAll(s, "secret", "<x>") })
	if a.Full(Text) != "secret" || b.Full(Text) != "other" || c.Full(Text) != "<x>" {
		t.Errorf("copies share renderings: a %q, b %q, c %q", a.Full(Text), b.Full(Text), c.Full(Text))
	}
}

func TestFormatNames(t *testing.T) {
	want := []string{"markdown-gfm", "markdown-rb", "jira-wiki", "text", "html"}
	for i, f := range Formats() {
		if string(f) != want[i] || !f.Valid() {
			t.Errorf("format %d = %q, want %q", i, f, want[i])
		}
	}
	if Format("markdown").Valid() {
		t.Error(`"markdown" is not a format`)
	}
}

func TestJSONRoundTripAndLegacy(t *testing.T) {
	var a Answer
	a.Key = "k"
	a.Set(JIRAWiki, Rendering{Full: "*full*", Short: "*short*"})
	data, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var b Answer
	if err := json.Unmarshal(data, &b); err != nil {
		t.Fatal(err)
	}
	if b.Key != "k" || b.Full(JIRAWiki) != "*full*" || b.Short(JIRAWiki) != "*short*" {
		t.Errorf("round trip: %+v", b)
	}
	// An answer queued in the outbox by an older perfbot.
	old := `{"Key":"job","State":"success","Markdown":"**md**","ShortMarkdown":"**s**","ReviewBoardMarkdown":"rb","JIRA":"*j*","Text":"t","HTML":"<p>h</p>"}`
	var c Answer
	if err := json.Unmarshal([]byte(old), &c); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[Format]string{MarkdownGFM: "**md**", MarkdownRB: "rb", JIRAWiki: "*j*", Text: "t", HTML: "<p>h</p>"} {
		if c.Full(f) != want {
			t.Errorf("legacy %s = %q, want %q", f, c.Full(f), want)
		}
	}
	if c.Key != "job" || c.State != StateSuccess || c.Short(MarkdownGFM) != "**s**" {
		t.Errorf("legacy answer read as %+v", c)
	}
	if err := json.Unmarshal([]byte(`{"Renderings":{"text":1}}`), &c); err == nil {
		t.Error("a rendering that is a number was accepted")
	}
}
