package bot

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Metrics holds the service's counters and histograms and writes them in
// the Prometheus text exposition format (version 0.0.4).
type Metrics struct {
	mu       sync.Mutex
	counters map[string]map[string]float64 // name -> labels -> value
	hists    map[string]map[string]*histogram
	help     map[string]string
}

// durationBuckets are job duration bucket bounds in seconds: benchmark jobs
// take seconds to hours.
var durationBuckets = []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200}

type histogram struct {
	counts []uint64 // per bucket, not cumulative
	sum    float64
	n      uint64
}

// NewMetrics returns empty metrics with the service's help texts.
func NewMetrics() *Metrics {
	return &Metrics{
		counters: map[string]map[string]float64{},
		hists:    map[string]map[string]*histogram{},
		help: map[string]string{
			"perfbot_jobs_total":               "Benchmark jobs finished, by outcome.",
			"perfbot_job_duration_seconds":     "Wall-clock time of benchmark jobs, by outcome.",
			"perfbot_posts_total":              "Answers posted or edited, by venue.",
			"perfbot_post_failures_total":      "Answers that failed to post, by venue.",
			"perfbot_answers_total":            "Final answers delivered, by venue and result.",
			"perfbot_answers_failed_total":     "Answers given up, by venue and reason (refused, expired, invalid).",
			"perfbot_jobs_cancelled_total":     "Benchmark jobs cancelled on request.",
			"perfbot_requests_total":           "Requests received by intake, by source and result.",
			"perfbot_jobs_rescued_total":       "Jobs handed to another worker after their worker stopped responding.",
			"perfbot_queue_jobs":               "Jobs in the queue, by queue and state.",
			"perfbot_digests_total":            "Digests sent.",
			"perfbot_poll_errors_total":        "Failed polls of a venue.",
			"perfbot_webhook_deliveries_total": "Webhook deliveries, by result.",
			"perfbot_schedule_fired_total":     "Scheduled runs and digests queued, by schedule.",
			"perfbot_trigger_decisions_total":  "Trigger policy decisions, by venue and decision.",
			"perfbot_replies_throttled_total":  "Refusals and help texts not posted because one went to the same user and place lately.",
		},
	}
}

// Add adds v to a counter with label pairs ("venue", "github", ...).
func (m *Metrics) Add(name string, v float64, labels ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	byLabel := m.counters[name]
	if byLabel == nil {
		byLabel = map[string]float64{}
		m.counters[name] = byLabel
	}
	byLabel[labelString(labels)] += v
}

// Inc adds one to a counter.
func (m *Metrics) Inc(name string, labels ...string) { m.Add(name, 1, labels...) }

// Observe records a duration in a histogram.
func (m *Metrics) Observe(name string, d time.Duration, labels ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	byLabel := m.hists[name]
	if byLabel == nil {
		byLabel = map[string]*histogram{}
		m.hists[name] = byLabel
	}
	key := labelString(labels)
	h := byLabel[key]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(durationBuckets)+1)}
		byLabel[key] = h
	}
	s := d.Seconds()
	i := sort.SearchFloat64s(durationBuckets, s)
	h.counts[i]++
	h.sum += s
	h.n++
}

// Counter returns a counter's value, for tests.
func (m *Metrics) Counter(name string, labels ...string) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counters[name][labelString(labels)]
}

// labelString renders label pairs as `a="x",b="y"` with values escaped.
func labelString(kv []string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, kv[i]+`="`+escapeLabel(kv[i+1])+`"`)
	}
	return strings.Join(parts, ",")
}

func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func braces(labels string) string {
	if labels == "" {
		return ""
	}
	return "{" + labels + "}"
}

func formatFloat(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// WriteTo writes every metric, plus the gauges given (name -> labels ->
// value), in the text exposition format.
func (m *Metrics) Write(w io.Writer, gauges map[string]map[string]float64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	header := func(name, typ string) {
		if h := m.help[name]; h != "" {
			fmt.Fprintf(&b, "# HELP %s %s\n", name, h)
		}
		fmt.Fprintf(&b, "# TYPE %s %s\n", name, typ)
	}
	series := func(kind map[string]map[string]float64, typ string) {
		for _, name := range sortedKeys(kind) {
			header(name, typ)
			for _, l := range sortedKeys(kind[name]) {
				fmt.Fprintf(&b, "%s%s %s\n", name, braces(l), formatFloat(kind[name][l]))
			}
		}
	}
	series(m.counters, "counter")
	series(gauges, "gauge")
	for _, name := range sortedKeys(m.hists) {
		header(name, "histogram")
		for _, l := range sortedKeys(m.hists[name]) {
			h := m.hists[name][l]
			var cum uint64
			sep := ""
			if l != "" {
				sep = ","
			}
			for i, ub := range append(durationBuckets, math.Inf(1)) {
				cum += h.counts[i]
				fmt.Fprintf(&b, "%s_bucket{%s%sle=\"%s\"} %d\n", name, l, sep, formatFloat(ub), cum)
			}
			fmt.Fprintf(&b, "%s_sum%s %s\n", name, braces(l), formatFloat(h.sum))
			fmt.Fprintf(&b, "%s_count%s %d\n", name, braces(l), h.n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
