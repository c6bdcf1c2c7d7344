package flame

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// built writes a pprof profile with two sample types (samples/count and
// cpu/nanoseconds), an inlined call and a leaf-first location list, as Go's
// runtime writes them.
func built(t *testing.T) []byte {
	t.Helper()
	fn := func(id uint64, name string) *profile.Function {
		return &profile.Function{ID: id, Name: name, SystemName: name, Filename: "x.go"}
	}
	main, work, hash, inl := fn(1, "main.main"), fn(2, "main.work"), fn(3, "crypto/sha256.block"), fn(4, "main.inlined")
	loc := func(id uint64, lines ...*profile.Function) *profile.Location {
		l := &profile.Location{ID: id, Address: 0x1000 + id}
		for _, f := range lines {
			l.Line = append(l.Line, profile.Line{Function: f, Line: 1})
		}
		return l
	}
	lMain, lWork, lHash := loc(1, main), loc(2, inl, work), loc(3, hash) // work's location: inlined first
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10000000,
		Function: []*profile.Function{main, work, hash, inl},
		Location: []*profile.Location{lMain, lWork, lHash},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{lHash, lWork, lMain}, Value: []int64{3, 30000000}},
			{Location: []*profile.Location{lWork, lMain}, Value: []int64{1, 10000000}},
		},
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadPprof(t *testing.T) {
	p, err := Read(built(t), "cpu.pprof")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"main.main;main.work;main.inlined;crypto/sha256.block": 30000000,
		"main.main;main.work;main.inlined":                     10000000,
	}
	if p.Unit != "nanoseconds" || p.Total != 40000000 || len(p.Stacks) != 2 {
		t.Fatalf("profile %+v", p)
	}
	for s, w := range want {
		if p.Stacks[s] != w {
			t.Errorf("stack %q = %v, want %v (all %v)", s, p.Stacks[s], w, p.Stacks)
		}
	}
	var folded bytes.Buffer
	if err := p.WriteFolded(&folded); err != nil {
		t.Fatal(err)
	}
	again, err := Read(folded.Bytes(), "again")
	if err != nil || again.Total != p.Total || len(again.Stacks) != 2 {
		t.Errorf("folded round trip: %+v, %v\n%s", again, err, folded.String())
	}
}

// TestReadRealGoProfile profiles a busy loop with runtime/pprof, as
// go test -cpuprofile does, and finds it at the top.
func TestReadRealGoProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Skipf("CPU profiling unavailable: %v", err)
	}
	deadline := time.Now().Add(400 * time.Millisecond)
	for time.Now().Before(deadline) {
		busy(20000)
	}
	pprof.StopCPUProfile()
	f.Close()
	p, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Total == 0 {
		t.Skip("no CPU samples were taken")
	}
	top := TopChanges(nil, p, 5)
	found := false
	for _, c := range top {
		if strings.HasSuffix(c.Function, ".busy") && c.CandTotal > 0.3 {
			found = true
		}
	}
	if !found {
		t.Errorf("busy is not among the heaviest functions: %+v", top)
	}
}

//go:noinline
func busy(n int) float64 {
	s := 0.0
	for i := range n {
		s += math.Sqrt(float64(i))
	}
	return s
}

func TestReadFoldedErrors(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"a;b 10\nno-count-here\n", "p.folded:2: want \"frame;frame;... count\""},
		{"a;b 10\na;c ten\n", "p.folded:2: want a sample count"},
		{"a;b -3\n", "p.folded:1: want a sample count"},
		{"# only a comment\n\n", "p.folded: no stacks"},
	} {
		_, err := ReadFolded(strings.NewReader(tt.text), "p.folded")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q", tt.text, err, tt.want)
		}
	}
}

// TestDiff compares two folded profiles as async-profiler writes them:
// the candidate moved time from parse into a cache lookup.
func TestDiff(t *testing.T) {
	base, err := ReadFolded(strings.NewReader("main;handle;parse 60\nmain;handle;write 40\n"), "base")
	if err != nil {
		t.Fatal(err)
	}
	cand, err := ReadFolded(strings.NewReader("main;handle;parse 10\nmain;handle;cache 30\nmain;handle;write 40\n"), "cand")
	if err != nil {
		t.Fatal(err)
	}
	root := Tree(base, cand)
	if root.Base != 1 || math.Abs(root.Cand-1) > 1e-12 {
		t.Fatalf("root %+v", root)
	}
	handle := root.Children[0].Children[0]
	if handle.Name != "handle" || len(handle.Children) != 3 || handle.Children[0].Name != "cache" {
		t.Fatalf("handle %+v", handle)
	}
	if c := handle.Children[0]; c.Base != 0 || math.Abs(c.Cand-0.375) > 1e-12 {
		t.Errorf("cache %+v, want 0 -> 37.5%%", c)
	}
	top := TopChanges(base, cand, 2)
	if len(top) != 2 || top[0].Function != "parse" || math.Abs(top[0].SelfDelta()-(12.5-60)) > 1e-9 || top[1].Function != "cache" {
		t.Errorf("top changes %+v", top)
	}
}

// TestSVG draws both kinds of graph with hostile function names and
// checks the result is well-formed XML whose text holds the names
// verbatim.
func TestSVG(t *testing.T) {
	hostile := `evil<script>alert("x")</script>&co`
	base, _ := ReadFolded(strings.NewReader("main;"+hostile+" 50\nmain;ok 50\n"), "base")
	cand, _ := ReadFolded(strings.NewReader("main;"+hostile+" 80\nmain;ok 20\n"), "cand")
	for _, tt := range []struct {
		name string
		root *Node
		opts SVGOptions
	}{
		{"flame", Tree(nil, cand), SVGOptions{Title: "cand <v2>"}},
		{"diff", Tree(base, cand), SVGOptions{Title: "base vs cand", Diff: true}},
	} {
		var buf bytes.Buffer
		if err := WriteSVG(&buf, tt.root, tt.opts); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), "<script>") {
			t.Errorf("%s: unescaped name in the SVG", tt.name)
		}
		dec := xml.NewDecoder(&buf)
		var texts []string
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: not well-formed: %v", tt.name, err)
			}
			if cd, ok := tok.(xml.CharData); ok {
				texts = append(texts, string(cd))
			}
		}
		joined := strings.Join(texts, "\n")
		if !strings.Contains(joined, hostile) || !strings.Contains(joined, tt.opts.Title) {
			t.Errorf("%s: tooltips or title lost the names:\n%s", tt.name, joined)
		}
		if tt.opts.Diff && !strings.Contains(joined, "50.00% → 80.00% (+30.00 points)") {
			t.Errorf("diff tooltip missing:\n%s", joined)
		}
	}
}

func FuzzReadFolded(f *testing.F) {
	f.Add([]byte("a;b;c 10\na;b 3\n"))
	f.Add([]byte("# c\n\nx 1.5\n"))
	f.Add([]byte("a;b\t7\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Read(data, "fuzz")
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteSVG(&buf, Tree(p, p), SVGOptions{Diff: true}); err != nil {
			t.Fatal(err)
		}
		if err := xml.NewDecoder(&buf).Decode(new(struct{})); err != nil {
			t.Fatalf("SVG does not parse: %v", err)
		}
	})
}

// TestDiffMergesFramesByFunction checks the differential graph's colours
// follow each function's share, not its stack path: a buffered writer
// frame added between write and the syscall does not paint the syscall
// red when its share fell from 53.9% to 50%. The sample counts are shown,
// with a warning when a side has too few.
func TestDiffMergesFramesByFunction(t *testing.T) {
	base, err := ReadFolded(strings.NewReader("main;write;syscall 539\nmain;compute 461\n"), "base")
	if err != nil {
		t.Fatal(err)
	}
	cand, err := ReadFolded(strings.NewReader("main;write;bufio.Write;syscall 500\nmain;compute 500\n"), "cand")
	if err != nil {
		t.Fatal(err)
	}
	if base.Samples != 1000 || cand.Samples != 1000 {
		t.Fatalf("samples: base %d, cand %d, want 1000 each", base.Samples, cand.Samples)
	}
	var b strings.Builder
	if err := WriteSVG(&b, Tree(base, cand), SVGOptions{Title: "t", Diff: true, BaseSamples: base.Samples, CandSamples: 40}); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	frame := regexp.MustCompile(`<g class="f" data-name="syscall"><title>([^<]*)</title><rect [^>]*fill="rgb\((\d+),(\d+),(\d+)\)"`)
	m := frame.FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("no syscall frame in:\n%s", svg)
	}
	if m[4] != "255" || m[2] == "255" {
		t.Errorf("syscall frame coloured rgb(%s,%s,%s), want blue: its share fell", m[2], m[3], m[4])
	}
	if !strings.Contains(m[1], "total 53.90% → 50.00%") {
		t.Errorf("syscall tooltip %q lacks its total shares", m[1])
	}
	for _, want := range []string{"samples: base 1000, candidate 40", "TOO FEW SAMPLES TO TRUST", "<script", "Reset zoom", "Search"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}
