package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/provenance"
)

// hostile strings, as a benchmark, a parameter, a variant, a patch subject
// or a log might carry them.
var hostile = []string{
	"@org/team <script>{html}",
	"[link|http://x]",
	"](javascript:alert(1))",
	"`code` | pipe\nnewline #123 :smile: bug 234 /r/583 www.evil.example {color:red}x{color} [~admin] ||head||",
	"\\| back\\slash *bold* _em_ -strike- +under+ ^sup^ ~sub~ ?cite? !img.png! <img src=x onerror=alert(1)>",
}

func hostileComparison(t testing.TB) *compare.Comparison {
	t.Helper()
	var rs []*bench.Result
	for i, name := range hostile {
		for _, v := range []string{"base", "@team <b>cand</b> [x|http://y]"} {
			samples := []float64{100, 101, 102, 99, 100, 101}
			if v != "base" && i%2 == 0 {
				samples = []float64{50, 51, 52, 49, 50, 51}
			}
			rs = append(rs, &bench.Result{
				Benchmark: name, Group: "{html}<script>alert(1)</script>{html}",
				Params: bench.Params{{Name: "p|" + hostile[(i+1)%len(hostile)], Value: hostile[(i+2)%len(hostile)]}},
				Unit:   "ns/op", Samples: samples, Variant: v,
			})
			// the same benchmark as a sweep, a counter and a workload
			for _, th := range []string{"1", "2", "4"} {
				rs = append(rs, &bench.Result{Benchmark: name, Params: bench.Params{{Name: "threads", Value: th}},
					Unit: "s", Summary: &bench.Summary{Mean: 10, N: 1}, Variant: v})
			}
			rs = append(rs, &bench.Result{Benchmark: "cycles", Group: name, Unit: "count",
				Summary: &bench.Summary{Mean: 1e9, N: 1}, Variant: v})
			rs = append(rs, &bench.Result{Benchmark: name, Params: bench.Params{{Name: "workload", Value: name}},
				Metric: name, Unit: "us", Summary: &bench.Summary{Mean: 5, N: 1}, Variant: v})
		}
	}
	cmp, err := compare.Compare(rs, compare.Options{Base: "base"})
	if err != nil {
		t.Fatal(err)
	}
	cmp.Failures = []provenance.Failure{{Variant: hostile[0], Stage: "build", Message: hostile[3],
		LogTail: "ok\n{noformat}\n```\n</pre><script>alert(1)</script>\n{code}{html}<b>x</b>{html}\n" + hostile[2]}}
	cmp.Warnings = []string{hostile[0], hostile[4]}
	cmp.Provenance.Sides = []provenance.Side{{Variant: "base", Ref: hostile[1]},
		{Variant: cmp.Candidates[0], Patch: hostile[2], PatchSubject: "@everyone [click](http://evil) #1 {html}<img src=x onerror=alert(1)>{html}"}}
	cmp.Provenance.Suites = []provenance.Suite{{Name: hostile[0], Commands: []string{hostile[3]}, Rounds: 2}}
	return cmp
}

func renderAll(t *testing.T, cmp *compare.Comparison) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range AllFormats {
		var b strings.Builder
		if err := Render(&b, f, cmp); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[f] = b.String()
	}
	return out
}

var (
	unescapedLB = regexp.MustCompile(`(^|[^\\])\[`)
)

// stripCode removes fenced blocks and inline code spans from Markdown: what
// is left is what GitHub parses as markup.
func stripCode(md string) string {
	md = stripFences(md)
	var b strings.Builder
	for i := 0; i < len(md); {
		if md[i] == '\\' && i+1 < len(md) {
			b.WriteString(md[i : i+2])
			i += 2
			continue
		}
		if md[i] != '`' {
			b.WriteByte(md[i])
			i++
			continue
		}
		n := 0
		for i+n < len(md) && md[i+n] == '`' {
			n++
		}
		fence := md[i : i+n]
		end := strings.Index(md[i+n:], fence)
		for end >= 0 && i+n+end+n < len(md) && md[i+n+end+n] == '`' {
			next := strings.Index(md[i+n+end+n:], fence)
			if next < 0 {
				end = -1
				break
			}
			end += n + next
		}
		if end < 0 {
			b.WriteString(fence)
			i += n
			continue
		}
		b.WriteString("CODE")
		i += n + end + n
	}
	return b.String()
}

// stripFences drops fenced code blocks: from a line of three or more
// backticks to the next line of exactly the same fence.
func stripFences(md string) string {
	var b strings.Builder
	fence := ""
	for _, l := range strings.SplitAfter(md, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case fence != "":
			if t == fence {
				fence = ""
			}
		case len(t) >= 3 && strings.Trim(t, "`") == "":
			fence = t
		default:
			b.WriteString(l)
		}
	}
	return b.String()
}

// cellCount counts the cells of a Markdown table line: unescaped pipes
// outside code spans are separators (GitHub also splits at escaped pipes
// inside code spans only when unescaped).
func cellCount(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n
}

// checkTables checks that every line of each table has the header's number
// of cells.
func checkTables(t *testing.T, venue, text string, count func(string) int, isTable func(string) bool) {
	t.Helper()
	want := -1
	for _, l := range strings.Split(text, "\n") {
		if !isTable(l) {
			want = -1
			continue
		}
		if want < 0 {
			want = count(l)
			continue
		}
		if got := count(l); got != want {
			t.Errorf("%s: a table line has %d cells, its header %d: %q", venue, got, want, l)
		}
	}
}

func TestEscapingMarkdown(t *testing.T) {
	out := renderAll(t, hostileComparison(t))
	for _, venue := range []string{"markdown", "reviewboard"} {
		md := out[venue]
		markup := stripFences(md)
		if venue == "markdown" {
			markup = stripCode(md)
			checkTables(t, venue, md, func(l string) int { return cellCount(stripCode(l)) },
				func(l string) bool { return strings.HasPrefix(l, "|") })
		} else {
			checkTables(t, venue, md, cellCount, func(l string) bool {
				return strings.Contains(l, " | ") || strings.HasPrefix(l, ":--") || strings.HasPrefix(l, "--:")
			})
		}
		bads := []string{"@org", "@team", "@everyone", "](", ":smile:", "www.evil", "http://", "javascript:alert"}
		if venue == "reviewboard" {
			bads = append(bads, "bug 234", "/r/583") // Review Board's auto-links
		} else {
			bads = append(bads, "#123", "#1 ") // GitHub's issue references
		}
		for _, bad := range bads {
			if strings.Contains(markup, bad) {
				t.Errorf("%s: %q survives outside code:\n%s", venue, bad, markup)
			}
		}
		if venue == "markdown" {
			for _, bad := range []string{"<script", "<img", "<b>"} {
				if strings.Contains(markup, bad) {
					t.Errorf("%s: HTML %q survives outside code", venue, bad)
				}
			}
			if strings.Count(markup, "<details>") != 1 || strings.Count(markup, "</details>") != 1 {
				t.Errorf("%s: a log or name opened or closed a <details> section", venue)
			}
		}
		if m := unescapedLB.FindString(markup); m != "" {
			t.Errorf("%s: an unescaped [ survives: %q", venue, m)
		}
	}
}

var (
	jiraNoformatBlock = regexp.MustCompile(`(?s)\{noformat\}.*?\{noformat\}`)
	jiraOwnMacros     = regexp.MustCompile(`\{color(:[a-z#0-9]+)?\}|\{\{|\}\}`)
)

func TestEscapingJIRA(t *testing.T) {
	jira := renderAll(t, hostileComparison(t))["jira"]
	if n := strings.Count(jira, "{noformat}"); n != 2 {
		t.Errorf("want one {noformat} block, got %d markers: a log closed it early", n)
	}
	markup := jiraNoformatBlock.ReplaceAllString(jira, "")
	markup = jiraOwnMacros.ReplaceAllString(markup, "")
	// "@name" mentions no one in wiki markup ([~name] does), so @ stays.
	for _, bad := range []string{"{", "}", "[", "]", "<script", "<img", "http://", "~admin", "!img"} {
		if strings.Contains(markup, bad) {
			t.Errorf("jira: %q survives outside {noformat}:\n%s", bad, markup)
		}
	}
	jiraCells := func(l string) int {
		if strings.HasPrefix(l, "||") {
			return strings.Count(l, "||") - 1
		}
		return strings.Count(l, "|") - 1
	}
	checkTables(t, "jira", markup, jiraCells, func(l string) bool { return strings.HasPrefix(l, "|") })
}

func TestEscapingHTML(t *testing.T) {
	h := renderAll(t, hostileComparison(t))["html"]
	for _, bad := range []string{"<script", "<img src=x", "<b>cand"} {
		if strings.Contains(h, bad) {
			t.Errorf("html: %q survives", bad)
		}
	}
	// Hostile text may show as text, never inside a tag.
	for _, tag := range tagRE.FindAllString(h, -1) {
		if strings.Contains(tag, "javascript") || strings.Contains(tag, "onerror") || strings.Contains(tag, "http") {
			t.Errorf("html: hostile text inside a tag: %s", tag)
		}
	}
	if !strings.Contains(h, "&lt;script&gt;") {
		t.Errorf("html: the hostile name is not shown escaped")
	}
}

func TestEscapingText(t *testing.T) {
	text := renderAll(t, hostileComparison(t))["text"]
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "newline #123") && !strings.Contains(l, "`code` | pipe newline") {
			t.Errorf("text: a name was split over lines: %q", l)
		}
		if strings.ContainsAny(l, "\x01\t\r") {
			t.Errorf("text: a control character survives: %q", l)
		}
	}
}

func TestMarkdownCode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "`plain`"},
		{"a`b", "``a`b``"},
		{"`x`", "`` `x` ``"},
		{"a|b", "`a\\|b`"},
		{"a\\|b", "`a\\" + zwsp + "\\|b`"},
		{"", ""},
		{"x\ny", "`x y`"},
	}
	for _, tc := range tests {
		if got := MarkdownCode(tc.in); got != tc.want {
			t.Errorf("MarkdownCode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEscapers(t *testing.T) {
	tests := []struct {
		name   string
		escape func(string) string
		in     string
		absent []string
	}{
		{"markdown", MarkdownEscape, "@user #12 [a](http://b) <i>x</i> *y* :tada:", []string{"@user", "#12", "[a]", "](", "<i>", "*y*", ":tada:", "http://"}},
		{"reviewboard", ReviewBoardEscape, "[a](http://b) *y* :tada: bug 12 /r/5 # h", []string{"[a]", "](", "*y*", ":tada:", "bug 12", "/r/5", "http://"}},
		{"jira", JIRAEscape, "{html}<b>{html} [x|http://y] [~bob] *b* {color:red}r{color} |c|", []string{"{", "[", "*b*", "|", "<b>", "http://"}},
	}
	for _, tc := range tests {
		got := tc.escape(tc.in)
		for _, a := range tc.absent {
			if strings.Contains(got, a) {
				t.Errorf("%s(%q) = %q still holds %q", tc.name, tc.in, got, a)
			}
		}
	}
}

// TestJIRAEscapeReadable checks that JIRA text keeps what wiki markup would
// not misread as it is, so a quoted or edited comment reads plainly.
func TestJIRAEscapeReadable(t *testing.T) {
	for in, want := range map[string]string{
		"Append-2":                   "Append-2",
		"write_ahead_log":            "write_ahead_log",
		"p=0.002 n=6 mde=104%":       "p=0.002 n=6 mde=104%",
		"BenchmarkGet/size=1K-8":     "BenchmarkGet/size=1K-8",
		"1e+9 ops (estimate)":        "1e+9 ops (estimate)",
		"a & b":                      "a & b",
		"-strike- *bold* x":          "&#45;strike&#45; &#42;bold&#42; x",
		"(y) http://x [~bob] {html}": "&#40;y) http&#58;//x &#91;&#126;bob&#93; &#123;html&#125;",
	} {
		if got := JIRAEscape(in); got != want {
			t.Errorf("JIRAEscape(%q) = %q, want %q", in, got, want)
		}
	}
	if got := jiraNumber("+12.86%"); got != "+12.86%" {
		t.Errorf("jiraNumber(+12.86%%) = %q", got)
	}
}
