package report

import (
	"encoding/json"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/provenance"
)

// seedCase is one testdata/seeds file: a seed report's own numbers as
// results, the variants to compare and the figures every rendering must
// show.
type seedCase struct {
	Seed       string            `json:"seed"`
	Base       string            `json:"base"`
	Candidates []string          `json:"candidates"`
	Provenance provenance.Record `json:"provenance"`
	Expect     []string          `json:"expect"`
	Results    []*bench.Result   `json:"results"`
}

// seedNames lists the seed cases; each is also a golden file name.
var seedNames = []string{"aurora-getjobkeys", "aurora-offheap", "hbase-cache", "hbase-wal", "hbase-ycsb"}

func loadSeed(t testing.TB, name string) (*compare.Comparison, *seedCase) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "seeds", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var sc seedCase
	if err := json.Unmarshal(data, &sc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	cmp, err := compare.Compare(sc.Results, compare.Options{Base: sc.Base, Candidates: sc.Candidates,
		Verdicts: compare.VerdictOptions{Seed: 1}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	p := sc.Provenance
	if p.Host.Name == "" {
		p.Host.Name = "bench-1"
	}
	if p.Host.OS == "" {
		p.Host.OS, p.Host.Arch, p.Host.CPU, p.Host.Cores = "linux", "amd64", "Intel(R) Xeon(R) E5-2680 v2", 32
	}
	p.Host.Toolchain = []string{"openjdk 1.8.0_112"}
	p.Started = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	p.Finished = p.Started.Add(42 * time.Minute)
	p.Tool = "test"
	if len(p.RunOrder) == 0 {
		p.RunOrder = append([]string{sc.Base}, sc.Candidates...)
	}
	cmp.Provenance = p
	return cmp, &sc
}

// formatExt is the golden file extension of each format.
var formatExt = map[string]string{
	"markdown": ".md", "reviewboard": ".rb.md", "jira": ".jira", "text": ".txt", "html": ".html", "json": ".json",
}

// visible is what a reader of a rendering sees, near enough to find
// figures in: escapes undone, tags and zero-width spaces dropped.
func visible(format, s string) string {
	s = strings.ReplaceAll(s, zwsp, "")
	switch format {
	case "markdown", "reviewboard":
		s = mdUnescape.ReplaceAllString(s, "$1")
		s = html.UnescapeString(s)
	case "jira":
		s = html.UnescapeString(s)
	case "html":
		s = tagRE.ReplaceAllString(s, "")
		s = html.UnescapeString(s)
	}
	return s
}

var (
	mdUnescape = regexp.MustCompile(`\\([[:punct:]])`)
	tagRE      = regexp.MustCompile(`<[^>]*>`)
)

// TestSeedFigures checks that the seeds' own figures appear in every
// venue's rendering of them.
func TestSeedFigures(t *testing.T) {
	for _, name := range seedNames {
		cmp, sc := loadSeed(t, name)
		for _, format := range AllFormats {
			if format == "json" {
				continue
			}
			t.Run(name+"/"+format, func(t *testing.T) {
				var b strings.Builder
				if err := Render(&b, format, cmp); err != nil {
					t.Fatal(err)
				}
				seen := visible(format, b.String())
				for _, want := range append(sc.Expect, "better", "provenance") {
					if !strings.Contains(strings.ToLower(seen), strings.ToLower(want)) {
						t.Errorf("%s rendering of seed %s lacks %q", format, sc.Seed, want)
					}
				}
				// The headline comes first; the summary line follows it,
				// wrapped to 72 columns in text.
				head := strings.Join(strings.Fields(seen[:min(len(seen), 1000)]), " ")
				if !strings.Contains(head, SummaryLine(cmp)) {
					t.Errorf("%s rendering does not start with the summary %q:\n%s", format, SummaryLine(cmp), seen[:min(len(seen), 400)])
				}
			})
		}
	}
}

// TestSeedJSON checks that JSON keeps the comparison's contract and the
// seeds' numbers.
func TestSeedJSON(t *testing.T) {
	cmp, _ := loadSeed(t, "aurora-getjobkeys")
	var b strings.Builder
	if err := Render(&b, "json", cmp); err != nil {
		t.Fatal(err)
	}
	var back compare.Comparison
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil {
		t.Fatal(err)
	}
	if back.Base != "master" || len(back.Rows) != 3 || back.Rows[0].Base.Center != 572.761 || back.Rows[0].Candidates[0].Center != 327336.998 {
		t.Errorf("JSON round trip lost the seed's figures: %+v", back.Rows)
	}
	for _, field := range []string{`"base_variant"`, `"candidate_variants"`, `"comparisons"`, `"geomean"`, `"summary"`, `"provenance"`, `"delta_pct"`, `"verdict"`} {
		if !strings.Contains(b.String(), field) {
			t.Errorf("JSON lacks field %s", field)
		}
	}
}

// TestJSONNonFinite checks that numbers JSON cannot hold become null:
// one run a side leaves no p-value.
func TestJSONNonFinite(t *testing.T) {
	cmp, _ := loadSeed(t, "hbase-cache")
	var b strings.Builder
	if err := Render(&b, "json", cmp); err != nil {
		t.Fatal(err)
	}
	if !json.Valid([]byte(b.String())) || !strings.Contains(b.String(), `"p": null`) {
		t.Errorf("non-finite numbers not written as null:\n%s", b.String())
	}
	if c := cmp.Rows[0].Candidates[0]; !math.IsNaN(c.P) {
		t.Errorf("rendering changed the comparison: p = %v", c.P)
	}
}

// TestSeedShapes checks that each seed is laid out in the shape it needs.
func TestSeedShapes(t *testing.T) {
	tests := []struct {
		seed   string
		shapes []string
		params []string // parameter columns of the first table
	}{
		{"aurora-getjobkeys", []string{ShapeTable}, []string{"numTasks"}},
		{"aurora-offheap", []string{ShapeTable}, []string{"numTasks", "instances", "instanceOverrides", "metadata"}},
		{"hbase-cache", []string{ShapeTable}, []string{"threads"}},
		{"hbase-wal", []string{ShapeSweep, ShapeCounters}, nil},
		{"hbase-ycsb", []string{ShapeWorkloads}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.seed, func(t *testing.T) {
			cmp, _ := loadSeed(t, tc.seed)
			doc := build(cmp, Options{})
			var shapes []string
			for _, s := range doc.Sections {
				shapes = append(shapes, s.Shape)
			}
			if strings.Join(shapes, ",") != strings.Join(tc.shapes, ",") {
				t.Errorf("shapes = %v, want %v", shapes, tc.shapes)
			}
			if tc.params != nil && strings.Join(doc.Sections[0].Params, ",") != strings.Join(tc.params, ",") {
				t.Errorf("param columns = %v, want %v", doc.Sections[0].Params, tc.params)
			}
		})
	}
}

// TestSweepRatio checks the WAL sweep's pivot: threads down, in order, the
// ratio in the better direction, the missing baseline shown as added.
func TestSweepRatio(t *testing.T) {
	cmp, _ := loadSeed(t, "hbase-wal")
	doc := build(cmp, Options{})
	s := doc.Sections[0]
	var got []string
	for _, l := range s.Lines {
		got = append(got, l.Name+":"+l.Cells[0].Ratio+":"+l.Cells[0].Verdict)
	}
	want := "1:3.7x:noisy 3:2.4x:noisy 5:2.0x:noisy 10:2.4x:noisy 25:2.1x:noisy 50:1.8x:noisy 100:1.4x:noisy 200::added"
	if strings.Join(got, " ") != want {
		t.Errorf("sweep lines\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

// TestSweepOptions checks that Options.SweepParams chooses which
// parameters pivot.
func TestSweepOptions(t *testing.T) {
	tests := []struct {
		name   string
		seed   string
		params []string
		first  string
	}{
		{"default", "hbase-wal", nil, ShapeSweep},
		{"off", "hbase-wal", []string{}, ShapeTable},
		{"numTasks", "aurora-getjobkeys", []string{"numTasks"}, ShapeSweep},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmp, _ := loadSeed(t, tc.seed)
			doc := build(cmp, Options{SweepParams: tc.params})
			if got := doc.Sections[0].Shape; got != tc.first {
				t.Errorf("first section is a %s, want a %s", got, tc.first)
			}
		})
	}
}
