package parse

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// fixtures lists the input files under testdata.
func fixtures(t testing.TB) []string {
	t.Helper()
	ents, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() || strings.HasPrefix(e.Name(), "PROVENANCE") {
			continue
		}
		out = append(out, e.Name())
	}
	if len(out) < 60 {
		t.Fatalf("only %d fixtures in testdata", len(out))
	}
	return out
}

// wantFormat is the format each fixture must be detected as, by name.
func wantFormat(file string) string {
	switch {
	case strings.HasPrefix(file, "jmh-text-") && (strings.Contains(file, "iterations") || strings.Contains(file, "liuwenru")):
		return "jmh-log"
	case strings.HasPrefix(file, "jmh-text-"):
		return "jmh"
	case strings.HasPrefix(file, "jmh-json-"):
		return "jmh-json"
	case strings.HasPrefix(file, "jmh-csv-"):
		return "jmh-csv"
	case strings.HasPrefix(file, "ycsb-java-"):
		return "ycsb"
	case strings.HasPrefix(file, "goycsb-"):
		return "go-ycsb"
	case strings.HasPrefix(file, "hbase-pe-"):
		return "hbase-pe"
	case strings.HasPrefix(file, "hbase-wal-"):
		return "hbase-wal"
	case strings.HasPrefix(file, "perfstat-csv-"):
		return "perf-stat-csv"
	case strings.HasPrefix(file, "perfstat-"):
		return "perf-stat"
	case strings.HasPrefix(file, "gobench-"):
		return "gobench"
	case strings.HasPrefix(file, "redis-benchmark-"):
		return "redis-benchmark"
	case strings.HasPrefix(file, "pgbench-"):
		return "pgbench"
	case strings.HasPrefix(file, "cachegrind-"):
		return "cachegrind"
	case strings.HasPrefix(file, "hyperfine-"):
		return "hyperfine"
	case strings.HasPrefix(file, "gbench-json-"):
		return "gbench-json"
	case strings.HasPrefix(file, "gbench-"):
		return "gbench"
	case strings.HasPrefix(file, "criterion-") && (strings.HasSuffix(file, ".json") || strings.HasSuffix(file, ".ndjson")):
		return "criterion-json"
	case strings.HasPrefix(file, "criterion-"):
		return "criterion"
	}
	return ""
}

func TestDetectFixtures(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", f))
			if err != nil {
				t.Fatal(err)
			}
			if len(data) > sniffSize {
				data = data[:sniffSize]
			}
			p, err := Detect(data)
			if err != nil {
				t.Fatalf("Detect: %v", err)
			}
			if want := wantFormat(f); p.Name() != want {
				t.Errorf("Detect = %s, want %s", p.Name(), want)
			}
			// Detect stops at the first certain match: no format may
			// score above it.
			for _, q := range Formats() {
				if s := q.Sniff(data); s > SniffCertain || s < 0 {
					t.Errorf("%s.Sniff = %d, outside 0..%d", q.Name(), s, SniffCertain)
				}
			}
		})
	}
}

// render parses a fixture and renders its results, warnings and error as
// golden text: one JSON object per result, "warning: ..." and "error: ..."
// lines.
func render(t *testing.T, file string) (string, []*bench.Result) {
	t.Helper()
	var b bytes.Buffer
	var results []*bench.Result
	path := filepath.Join("testdata", file)
	ctx := WithWarnings(context.Background(), func(w *SyntaxError) {
		b.WriteString("warning: " + w.Error() + "\n")
	})
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = Reader(ctx, f, file, "auto", func(r *bench.Result) error {
		line, err := JSONLine(r)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
		results = append(results, r)
		return nil
	})
	if err != nil {
		b.WriteString("error: " + err.Error() + "\n")
	}
	return b.String(), results
}

func TestGoldenFixtures(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f, func(t *testing.T) {
			got, results := render(t, f)
			for _, r := range results {
				if err := r.Validate(); err != nil {
					t.Errorf("%s: %v", r.Source, err)
				}
				if !strings.HasPrefix(r.Source, f+":") {
					t.Errorf("source %q does not name the file and line", r.Source)
				}
			}
			golden := filepath.Join("testdata", "golden", f+".jsonl")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (run go test -update and review the diff):\n%s", golden, lineDiff(string(want), got))
			}
		})
	}
}

// lineDiff shows the first differing lines.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n- " + wl + "\n+ " + gl
		}
	}
	return ""
}
