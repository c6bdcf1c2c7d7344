// Package answer holds a job's rendered answer: one rendering per markup
// format, the files sent with it and the outcome a venue shows. Package
// report builds it; venue clients (venue/github, venue/jira,
// venue/reviewboard, venue/mail, ...) only read it: each picks the format its
// venue reads and cuts to its own size limit, which it defines itself.
//
// The format names are stable (they may appear in configuration and in
// stored answers):
//
//	markdown-gfm  GitHub-flavoured Markdown (GitHub, GitLab; raw HTML such
//	              as <details> allowed)
//	markdown-rb   Markdown as Review Board's Python-Markdown renders it:
//	              no raw HTML, no <details>, no emoji, no GFM extensions
//	              beyond tables and fenced code
//	jira-wiki     JIRA wiki markup
//	text          plain text with aligned columns (a mail's first part)
//	html          a self-contained HTML page (a mail's HTML part)
package answer

import "encoding/json"

// Format names a markup an answer is rendered in.
type Format string

// The formats report renders.
const (
	MarkdownGFM Format = "markdown-gfm"
	MarkdownRB  Format = "markdown-rb"
	JIRAWiki    Format = "jira-wiki"
	Text        Format = "text"
	HTML        Format = "html"
)

// Formats lists every format, in a fixed order.
func Formats() []Format {
	return []Format{MarkdownGFM, MarkdownRB, JIRAWiki, Text, HTML}
}

// Valid reports whether f is one of Formats.
func (f Format) Valid() bool {
	for _, g := range Formats() {
		if f == g {
			return true
		}
	}
	return false
}

// Rendering is an answer in one format.
type Rendering struct {
	// Full is the whole answer.
	Full string
	// Short is a shorter answer (the headline and the changed rows),
	// fitted by report to the room it was given for the format; "" when
	// the format has none.
	Short string
}

// Answer is one job's answer, rendered in every format a venue reads.
type Answer struct {
	// Key identifies the job's answer stably across retries and reruns: a
	// client uses it to find and edit its earlier post (a hidden marker in
	// a comment, the Message-ID of a mail) instead of posting twice.
	Key string
	// Subject is a one-line title: a mail's subject, a review's heading.
	Subject string
	// Summary is a one-line verdict ("2 better, 1 worse, 14 same"), for
	// a commit status or a digest line.
	Summary string
	// State is the outcome for venues that show one (commit statuses).
	State State
	// Commit is the commit the answer speaks for: the head side's commit
	// as it was measured (a pull request's head when the job checked it
	// out). A venue's commit status or check run goes on it, never on a
	// head pushed since; empty before a measurement, and when the
	// measured code is no commit of the venue's (a patch applied here).
	Commit string `json:",omitempty"`
	// Renderings holds the answer by format. Read it through Full, Short
	// and Fit; change it only through Set and Map, which copy it.
	Renderings map[Format]Rendering
	// Attachments are raw results and charts.
	Attachments []Attachment
	// InReplyTo and References place a mail answer in the thread that
	// asked (the Message-IDs of the cover letter or first patch and of
	// its ancestors); other venues ignore them.
	InReplyTo  string
	References []string
}

// Set stores the rendering of format f, copying the map first so that
// answers copied from a sets do not change with it.
func (a *Answer) Set(f Format, r Rendering) {
	m := make(map[Format]Rendering, len(a.Renderings)+1)
	for k, v := range a.Renderings {
		m[k] = v
	}
	m[f] = r
	a.Renderings = m
}

// Full is the whole rendering in format f ("" when there is none).
func (a Answer) Full(f Format) string { return a.Renderings[f].Full }

// Short is the short rendering in format f, or the full one when the
// format has no short rendering.
func (a Answer) Short(f Format) string {
	r := a.Renderings[f]
	if r.Short != "" {
		return r.Short
	}
	return r.Full
}

// Fit returns the full rendering in format f when it is at most room
// characters long (counted by size(s)), else the short one when that is;
// ok is false when neither fits, and then the text is the short rendering
// (or the full one when there is no short), for the venue to cut.
func (a Answer) Fit(f Format, room int, size func(string) int) (text string, ok bool) {
	r := a.Renderings[f]
	for _, s := range []string{r.Full, r.Short} {
		if s != "" && size(s) <= room {
			return s, true
		}
	}
	return a.Short(f), false
}

// Map returns a copy of a with fn applied to the subject, the summary and
// every rendering; the attachments are shared, not copied.
func (a Answer) Map(fn func(string) string) Answer {
	a.Subject, a.Summary = fn(a.Subject), fn(a.Summary)
	if a.Renderings != nil {
		m := make(map[Format]Rendering, len(a.Renderings))
		for k, r := range a.Renderings {
			m[k] = Rendering{Full: fn(r.Full), Short: mapNonEmpty(r.Short, fn)}
		}
		a.Renderings = m
	}
	return a
}

func mapNonEmpty(s string, fn func(string) string) string {
	if s == "" {
		return ""
	}
	return fn(s)
}

// State is the outcome shown by venues that have one.
type State string

// States of a posted answer.
const (
	StateSuccess State = "success" // compared; nothing got worse
	StateFailure State = "failure" // compared; something got worse
	StateError   State = "error"   // nothing could be compared
	StatePending State = "pending" // running (or queued, where a venue has no queued state)
	// StateQueued is a request admitted and waiting for a worker.
	StateQueued State = "queued"
	// StateCancelled is a request cancelled before its result.
	StateCancelled State = "cancelled"
)

// Attachment is a file sent with an answer.
type Attachment struct {
	Name        string
	ContentType string
	Data        []byte
	// Inline marks an image meant to be shown in the body (mail's
	// multipart/related), rather than offered as a download.
	Inline bool
}

// UnmarshalJSON reads an answer as encoding/json writes it, and also as
// stored before renderings were kept by format (fields Markdown,
// ShortMarkdown, ReviewBoardMarkdown, JIRA, ShortJIRA, Text, HTML), so
// answers queued by an older perfbot are still delivered.
func (a *Answer) UnmarshalJSON(data []byte) error {
	type plain Answer
	var v struct {
		plain
		Markdown, ShortMarkdown, ReviewBoardMarkdown string
		JIRA, ShortJIRA, Text, HTML                  string
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*a = Answer(v.plain)
	for _, old := range []struct {
		f           Format
		full, short string
	}{
		{MarkdownGFM, v.Markdown, v.ShortMarkdown},
		{MarkdownRB, v.ReviewBoardMarkdown, ""},
		{JIRAWiki, v.JIRA, v.ShortJIRA},
		{Text, v.Text, ""},
		{HTML, v.HTML, ""},
	} {
		if _, ok := a.Renderings[old.f]; !ok && (old.full != "" || old.short != "") {
			a.Set(old.f, Rendering{Full: old.full, Short: old.short})
		}
	}
	return nil
}
