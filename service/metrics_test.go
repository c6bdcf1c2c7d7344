package service

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// oldMetrics are the families the service served before its metrics went
// through client_golang, with their types and labels, as the hand-written
// exposition printed them: dashboards and alerts read these names.
var oldMetrics = []struct {
	name, typ string
	labels    []string
}{
	{"perfbot_jobs_total", "counter", []string{"outcome"}},
	{"perfbot_job_duration_seconds", "histogram", []string{"outcome"}},
	{"perfbot_posts_total", "counter", []string{"venue"}},
	{"perfbot_post_failures_total", "counter", []string{"venue"}},
	{"perfbot_answers_total", "counter", []string{"result", "venue"}},
	{"perfbot_answers_failed_total", "counter", []string{"reason", "venue"}},
	{"perfbot_jobs_cancelled_total", "counter", nil},
	{"perfbot_requests_total", "counter", []string{"result", "source"}},
	{"perfbot_jobs_rescued_total", "counter", nil},
	{"perfbot_queue_jobs", "gauge", []string{"queue", "state"}},
	{"perfbot_digests_total", "counter", nil},
	{"perfbot_poll_errors_total", "counter", []string{"poller"}},
	{"perfbot_webhook_deliveries_total", "counter", []string{"result"}},
	{"perfbot_gitlab_webhook_deliveries_total", "counter", []string{"result"}},
	{"perfbot_schedule_fired_total", "counter", []string{"schedule"}},
	{"perfbot_trigger_decisions_total", "counter", []string{"decision", "venue"}},
	{"perfbot_replies_throttled_total", "counter", []string{"kind", "venue"}},
}

// TestMetricsScrape counts once in every metric, scrapes /metrics and checks
// that each old family is there with its type and labels, beside the Go
// and process collectors and perfbot_build_info.
func TestMetricsScrape(t *testing.T) {
	m := NewMetrics("v1.2.3")
	for _, d := range counterDefs() {
		var pairs []string
		for _, l := range d.labels {
			pairs = append(pairs, l, "x")
		}
		m.Inc(d.name, pairs...)
	}
	m.Observe("perfbot_job_duration_seconds", 42*time.Second, "outcome", "done")
	m.Inc("perfbot_requests_total", "source", "schedule", "result", "queued")
	m.Inc("perfbot_requests_total", "result", "queued", "source", "schedule")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.serve(w, r, map[[2]string]int{{"benchmark", "available"}: 2, {"q\"x", "running"}: 1})
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type = %q, want the text exposition format", ct)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	for _, want := range oldMetrics {
		f := families[want.name]
		if f == nil {
			t.Errorf("/metrics lacks %s", want.name)
			continue
		}
		if got := strings.ToLower(f.GetType().String()); got != want.typ {
			t.Errorf("%s is a %s, want a %s", want.name, got, want.typ)
		}
		for _, metric := range f.GetMetric() {
			var names []string
			for _, l := range metric.GetLabel() {
				names = append(names, l.GetName())
			}
			if !slices.Equal(names, want.labels) {
				t.Errorf("%s has labels %v, want %v", want.name, names, want.labels)
			}
		}
	}

	value := func(name string, labels map[string]string) (float64, bool) {
		for _, metric := range families[name].GetMetric() {
			got := map[string]string{}
			for _, l := range metric.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			if len(got) != len(labels) {
				continue
			}
			same := true
			for k, v := range labels {
				same = same && got[k] == v
			}
			if !same {
				continue
			}
			switch {
			case metric.Counter != nil:
				return metric.GetCounter().GetValue(), true
			case metric.Gauge != nil:
				return metric.GetGauge().GetValue(), true
			case metric.Histogram != nil:
				return metric.GetHistogram().GetSampleSum(), true
			}
		}
		return 0, false
	}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"perfbot_requests_total", map[string]string{"source": "schedule", "result": "queued"}, 2},
		{"perfbot_digests_total", nil, 1},
		{"perfbot_queue_jobs", map[string]string{"queue": "benchmark", "state": "available"}, 2},
		{"perfbot_queue_jobs", map[string]string{"queue": `q"x`, "state": "running"}, 1},
		{"perfbot_job_duration_seconds", map[string]string{"outcome": "done"}, 42},
		{"perfbot_build_info", map[string]string{"version": "v1.2.3", "revision": buildLabels("")[1], "goversion": runtime.Version()}, 1},
	} {
		if got, ok := value(c.name, c.labels); !ok || got != c.want {
			t.Errorf("%s%v = %v (found %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	buckets := families["perfbot_job_duration_seconds"].GetMetric()[0].GetHistogram().GetBucket()
	var bounds []float64
	for _, b := range buckets {
		bounds = append(bounds, b.GetUpperBound())
	}
	if want := append(durationBuckets(), math.Inf(1)); !slices.Equal(bounds, want) {
		t.Errorf("perfbot_job_duration_seconds buckets = %v, want %v", bounds, want)
	}
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_cpu_seconds_total", "process_resident_memory_bytes"} {
		if families[name] == nil {
			t.Errorf("/metrics lacks %s (the Go and process collectors)", name)
		}
	}

	// A counter without labels is served from the start, at 0.
	fresh := NewMetrics("")
	gathered, err := fresh.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range gathered {
		if f.GetName() == "perfbot_jobs_cancelled_total" && len(f.GetMetric()) == 1 && f.GetMetric()[0].GetCounter().GetValue() == 0 {
			found = true
		}
	}
	if !found {
		t.Error("a new service's metrics lack perfbot_jobs_cancelled_total 0")
	}

	// A second scrape shows the queue as it is then, not as it was.
	rec := httptest.NewRecorder()
	m.serve(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil), map[[2]string]int{{"benchmark", "running"}: 1})
	if body := rec.Body.String(); strings.Contains(body, `state="available"`) || !strings.Contains(body, `perfbot_queue_jobs{queue="benchmark",state="running"} 1`) {
		t.Errorf("second scrape's queue:\n%s", body)
	}
}

// TestMetricsCounter reads counters back and ignores a counter counted with
// labels it does not declare.
func TestMetricsCounter(t *testing.T) {
	m := NewMetrics("")
	m.Inc("perfbot_post_failures_total", "venue", "github")
	m.Add("perfbot_post_failures_total", 2, "venue", "github")
	m.Inc("perfbot_post_failures_total", "place", "github")
	m.Inc("perfbot_no_such_total")
	if got := m.Counter("perfbot_post_failures_total", "venue", "github"); got != 3 {
		t.Errorf("perfbot_post_failures_total{venue=github} = %v, want 3", got)
	}
	families, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "perfbot_post_failures_total" && len(f.GetMetric()) != 1 {
			t.Errorf("perfbot_post_failures_total has %d series, want 1", len(f.GetMetric()))
		}
		if f.GetName() == "perfbot_build_info" && f.GetType() != dto.MetricType_GAUGE {
			t.Errorf("perfbot_build_info is a %v", f.GetType())
		}
	}
}

// TestMetricsDeclared reads the module's source for every call that counts
// in a perfbot_ metric by name (Inc, Add, Count, count, Observe with a
// string literal) and checks that the metric is declared with exactly the
// labels the call gives: a metric misnamed or mislabelled counts nothing.
func TestMetricsDeclared(t *testing.T) {
	declared := map[string][]string{}
	for _, d := range append(counterDefs(), histogramDefs()...) {
		declared[d.name] = slices.Sorted(slices.Values(d.labels))
	}
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	fset := token.NewFileSet()
	calls := 0
	err = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && path != root && (strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata") {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			first := 1
			switch sel.Sel.Name {
			case "Inc", "Count", "count":
			case "Add", "Observe":
				first = 2
			default:
				return true
			}
			name, ok := stringLit(call.Args[0])
			if !ok || !strings.HasPrefix(name, "perfbot_") {
				return true
			}
			calls++
			where := fset.Position(call.Pos())
			labels, ok := declared[name]
			if !ok {
				t.Errorf("%s counts in %s, which NewMetrics does not declare", where, name)
				return true
			}
			var given []string
			for i := first; i < len(call.Args); i += 2 {
				l, ok := stringLit(call.Args[i])
				if !ok {
					t.Errorf("%s: %s's label name is not a string literal", where, name)
					return true
				}
				given = append(given, l)
			}
			slices.Sort(given)
			if !slices.Equal(given, labels) {
				t.Errorf("%s counts in %s with labels %v; it is declared with %v", where, name, given, labels)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls < 20 {
		t.Errorf("found %d calls counting in a perfbot_ metric; the source has more: is the walk reading it?", calls)
	}
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}
