package report

import (
	"github.com/perfbot/perfbot/internal/safetext"

	"bytes"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	texttemplate "text/template"
	"unicode"
	"unicode/utf8"

	"github.com/perfbot/perfbot/templates"
)

// venue is a markup a report is written in; each has a template file.
type venue string

const (
	venueMarkdown    venue = "markdown"
	venueReviewBoard venue = "reviewboard"
	venueJIRA        venue = "jira"
	venueText        venue = "text"
	venueHTML        venue = "html"
)

func venueOf(format string) (venue, error) {
	switch format {
	case "text", "":
		return venueText, nil
	case "markdown", "md", "github":
		return venueMarkdown, nil
	case "reviewboard", "rb":
		return venueReviewBoard, nil
	case "jira":
		return venueJIRA, nil
	case "html":
		return venueHTML, nil
	}
	return "", fmt.Errorf("unknown report format %q (want %s)", format, strings.Join(AllFormats, ", "))
}

// executor is what text/template and html/template have in common.
type executor interface {
	ExecuteTemplate(w io.Writer, name string, data any) error
}

// templateSet is one venue's parsed templates.
type templateSet struct {
	venue venue
	exec  executor
}

// loadTemplates parses the venue's embedded template file, then the user's
// overrides from dir: dir/<venue>.tmpl and dir/<venue>/*.tmpl, in that
// order. A {{define}} in an override replaces the default of that name.
func loadTemplates(v venue, dir string) (*templateSet, error) {
	return parseTemplates(v, dir, true)
}

// parseTemplates is loadTemplates; fast lets the text venue's default
// tables be written by Go code (fasttext.go) when nothing overrides them.
func parseTemplates(v venue, dir string, fast bool) (*templateSet, error) {
	file := string(v) + ".tmpl"
	base, err := fs.ReadFile(templates.FS, file)
	if err != nil {
		return nil, fmt.Errorf("report: embedded template %s: %w", file, err)
	}
	sources := []source{{name: file, text: string(base)}}
	user, err := userTemplates(v, dir)
	if err != nil {
		return nil, err
	}
	sources = append(sources, user...)
	if v == venueHTML {
		t := htmltemplate.New(string(v)).Funcs(htmlFuncs())
		for _, s := range sources {
			if _, err := t.New(s.name).Parse(s.text); err != nil {
				return nil, fmt.Errorf("report: template %s: %w", s.name, err)
			}
		}
		return &templateSet{venue: v, exec: t}, nil
	}
	t := texttemplate.New(string(v)).Funcs(textFuncs(v))
	for _, s := range sources {
		if _, err := t.New(s.name).Parse(s.text); err != nil {
			return nil, fmt.Errorf("report: template %s: %w", s.name, err)
		}
	}
	if fast && v == venueText && len(user) == 0 {
		if err := useFastText(t.Funcs(fastTextFuncs())); err != nil {
			return nil, err
		}
	}
	return &templateSet{venue: v, exec: t}, nil
}

type source struct{ name, text string }

func userTemplates(v venue, dir string) ([]source, error) {
	if dir == "" {
		return nil, nil
	}
	var paths []string
	single := filepath.Join(dir, string(v)+".tmpl")
	if _, err := os.Stat(single); err == nil {
		paths = append(paths, single)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("report: template folder: %w", err)
	}
	more, err := filepath.Glob(filepath.Join(dir, string(v), "*.tmpl"))
	if err != nil {
		return nil, fmt.Errorf("report: template folder %s: %w", dir, err)
	}
	sort.Strings(more)
	paths = append(paths, more...)
	var out []source
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("report: template: %w", err)
		}
		out = append(out, source{name: p, text: string(b)})
	}
	return out, nil
}

// render executes the "report" template on doc.
func (s *templateSet) render(doc *Document) (string, error) {
	var b bytes.Buffer
	if err := s.exec.ExecuteTemplate(&b, "report", doc); err != nil {
		return "", fmt.Errorf("report: rendering %s: %w", s.venue, err)
	}
	out := b.String()
	if s.venue == venueText {
		out = alignColumns(out)
	}
	// Whatever a template let through (a log tail in a code block), no
	// control character or bidi control reaches the reader.
	return safetext.Answer(out), nil
}

// renderTo executes the "report" template on doc straight into w; text
// tables are aligned block by block as they pass.
func (s *templateSet) renderTo(w io.Writer, doc *Document) error {
	// Whatever a template let through (a log tail in a code block), no
	// control character or bidi control reaches the reader.
	safe := safetext.NewWriter(w, safetext.Answer)
	var out io.Writer = safe
	var aw *alignWriter
	if s.venue == venueText {
		aw = &alignWriter{w: safe}
		out = aw
	}
	if err := s.exec.ExecuteTemplate(out, "report", doc); err != nil {
		return fmt.Errorf("report: rendering %s: %w", s.venue, err)
	}
	if aw != nil {
		if err := aw.Close(); err != nil {
			return err
		}
	}
	return safe.Flush()
}

// alignWriter lays out what is written to it as alignColumns does, holding
// back only the current block of tab-separated lines.
type alignWriter struct {
	w       io.Writer
	partial []byte   // the unfinished line
	block   []string // the tab-separated lines waiting for their widths
	err     error
}

func (a *alignWriter) Write(p []byte) (int, error) {
	if a.err != nil {
		return 0, a.err
	}
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			a.partial = append(a.partial, p...)
			break
		}
		a.partial = append(a.partial, p[:i+1]...)
		p = p[i+1:]
		a.line(string(a.partial))
		a.partial = a.partial[:0]
	}
	return n, a.err
}

func (a *alignWriter) line(l string) {
	if strings.Contains(l, "\t") {
		a.block = append(a.block, l)
		return
	}
	a.flushBlock()
	if a.err == nil {
		_, a.err = io.WriteString(a.w, l)
	}
}

func (a *alignWriter) flushBlock() {
	if len(a.block) == 0 || a.err != nil {
		return
	}
	var b strings.Builder
	writeAligned(&b, a.block)
	a.block = a.block[:0]
	_, a.err = io.WriteString(a.w, b.String())
}

// Close writes what is held back.
func (a *alignWriter) Close() error {
	if len(a.partial) > 0 {
		a.line(string(a.partial))
		a.partial = nil
	}
	a.flushBlock()
	return a.err
}

// commonFuncs are the helpers every text venue's templates may call.
func commonFuncs() texttemplate.FuncMap {
	return texttemplate.FuncMap{
		"join":       strings.Join,
		"add":        func(a, b int) int { return a + b },
		"tail":       tail,
		"splitLines": splitLines,
		"oneline":    oneLine,
		"capital":    capital,
		"or1": func(s, alt string) string {
			if s == "" {
				return alt
			}
			return s
		},
	}
}

func splitLines(s string) []string { return strings.Split(s, "\n") }

func textFuncs(v venue) texttemplate.FuncMap {
	f := commonFuncs()
	switch v {
	case venueMarkdown:
		f["esc"] = MarkdownEscape
		f["md"] = MarkdownEscape
		f["code"] = MarkdownCode
		f["fence"] = codeFence
	case venueReviewBoard:
		f["esc"] = ReviewBoardEscape
		f["rb"] = ReviewBoardEscape
		f["fence"] = codeFence
	case venueJIRA:
		f["esc"] = JIRAEscape
		f["jira"] = JIRAEscape
		// jcell escapes a table cell and keeps it from being empty: "||"
		// would start a header cell.
		f["jcell"] = func(s string) string {
			if s = JIRAEscape(s); s == "" {
				return " "
			}
			return s
		}
		f["noformat"] = jiraNoformat
		f["jnum"] = jiraNumber
		f["jhead"] = jiraHeadline
	case venueText:
		f["esc"] = textEscape
		f["txt"] = textEscape
		f["wrap"] = func(s string) string { return wrapText(s, textWidth) }
		f["markword"] = markWord
		// left marks a cell of an aligned table as left-aligned.
		f["left"] = func() string { return leftMark }
	}
	return f
}

func htmlFuncs() htmltemplate.FuncMap {
	return htmltemplate.FuncMap{
		"join":    strings.Join,
		"add":     func(a, b int) int { return a + b },
		"tail":    tail,
		"oneline": oneLine,
		"capital": capital,
		"or1": func(s, alt string) string {
			if s == "" {
				return alt
			}
			return s
		},
		// cid is the mail reference to an attached image.
		"cid": func(name string) htmltemplate.URL {
			return htmltemplate.URL("cid:" + safeName(name))
		},
	}
}

// textWidth is the width plain text is wrapped to, as mail lists expect.
const textWidth = 72

// wrapText breaks s at spaces into lines of at most width characters; a
// word longer than width stands on its own line.
func wrapText(s string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(s) {
		c := utf8.RuneCountInString(w)
		switch {
		case n == 0:
		case n+1+c > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += c
	}
	return b.String()
}

// capital upper-cases the first letter: "threads" -> "Threads".
func capital(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// safeName keeps a file name to letters, digits, '.', '-' and '_'.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '-' || r == '_') {
			return r
		}
		return '_'
	}, s)
}

// leftMark starts a cell that the text layout aligns left; the other cells
// but a line's first are aligned right.
const leftMark = "\x01"

// alignColumns lays out every block of consecutive lines that contain tabs
// as a table: cells separated by two spaces, the first column and cells
// marked with leftMark aligned left, the others right, trailing spaces cut.
func alignColumns(s string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	b.Grow(len(s) + len(s)/2)
	for i := 0; i < len(lines); {
		if !strings.Contains(lines[i], "\t") {
			b.WriteString(lines[i])
			i++
			continue
		}
		j := i
		for j < len(lines) && strings.Contains(lines[j], "\t") {
			j++
		}
		writeAligned(&b, lines[i:j])
		i = j
	}
	return b.String()
}

func writeAligned(b *strings.Builder, lines []string) {
	grid := make([][]string, len(lines))
	for i, l := range lines {
		grid[i] = strings.Split(strings.TrimRight(l, "\n"), "\t")
	}
	writeGrid(b, grid)
}

// writeGrid writes lines of cells in aligned columns (see alignColumns).
func writeGrid(b *strings.Builder, grid [][]string) {
	var widths []int
	for _, cells := range grid {
		for k, c := range cells {
			if k >= len(widths) {
				widths = append(widths, 0)
			}
			widths[k] = max(widths[k], utf8.RuneCountInString(strings.TrimPrefix(c, leftMark)))
		}
	}
	var line []byte
	for _, cells := range grid {
		line = line[:0]
		for k, c := range cells {
			left := k == 0 || strings.HasPrefix(c, leftMark)
			c = strings.TrimPrefix(c, leftMark)
			pad := widths[k] - utf8.RuneCountInString(c)
			if k > 0 {
				line = append(line, "  "...)
			}
			if !left {
				line = appendSpaces(line, pad)
			}
			line = append(line, c...)
			if left {
				line = appendSpaces(line, pad)
			}
		}
		b.Write(bytes.TrimRight(line, " "))
		b.WriteByte('\n')
	}
}

func appendSpaces(b []byte, n int) []byte {
	for ; n > 0; n-- {
		b = append(b, ' ')
	}
	return b
}
