package service

import (
	"fmt"
	"net/http"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
)

// Metrics are the service's Prometheus metrics, in a registry the service
// owns: the counters and the job duration histogram that the service and its
// intakes count in by name, the queue depth read at each scrape,
// perfbot_build_info, and the Go runtime and process collectors.
type Metrics struct {
	reg      *prometheus.Registry
	counters map[string]labelled[*prometheus.CounterVec]
	hists    map[string]labelled[*prometheus.HistogramVec]
	queue    *prometheus.GaugeVec
	handler  http.Handler
	// scrape keeps one scrape's queue depth from mixing with another's.
	scrape sync.Mutex
}

// labelled is a metric family and the names of its labels, in order.
type labelled[V any] struct {
	vec    V
	labels []string
}

// A metricDef declares one metric family: its name, help text and labels.
type metricDef struct {
	name, help string
	labels     []string
}

// counterDefs are the service's counters. Their names, types and labels
// are what dashboards read: keep them.
func counterDefs() []metricDef {
	return []metricDef{
		{"perfbot_jobs_total", "Benchmark jobs finished, by outcome.", []string{"outcome"}},
		{"perfbot_posts_total", "Answers posted or edited, by venue.", []string{"venue"}},
		{"perfbot_post_failures_total", "Answers that failed to post, by venue.", []string{"venue"}},
		{"perfbot_answers_total", "Final answers delivered, by venue and result.", []string{"venue", "result"}},
		{"perfbot_answers_failed_total", "Answers given up, by venue and reason (refused, expired, invalid).", []string{"venue", "reason"}},
		{"perfbot_jobs_cancelled_total", "Benchmark jobs cancelled on request.", nil},
		{"perfbot_requests_total", "Requests received by intake, by source and result.", []string{"source", "result"}},
		{"perfbot_jobs_rescued_total", "Jobs handed to another worker after their worker stopped responding.", nil},
		{"perfbot_digests_total", "Digests delivered, one per target.", nil},
		{"perfbot_poll_errors_total", "Failed polls of a venue.", []string{"poller"}},
		{"perfbot_webhook_deliveries_total", "Webhook deliveries, by result.", []string{"result"}},
		{"perfbot_gitlab_webhook_deliveries_total", "GitLab webhook deliveries, by result.", []string{"result"}},
		{"perfbot_schedule_fired_total", "Scheduled runs and digests queued, by schedule.", []string{"schedule"}},
		{"perfbot_trigger_decisions_total", "Trigger policy decisions, by venue and decision.", []string{"venue", "decision"}},
		{"perfbot_replies_throttled_total", "Refusals and help texts not posted because one went to the same user and place lately.", []string{"venue", "kind"}},
	}
}

// histogramDefs are the service's histograms of durations.
func histogramDefs() []metricDef {
	return []metricDef{
		{"perfbot_job_duration_seconds", "Wall-clock time of benchmark jobs, by outcome.", []string{"outcome"}},
	}
}

// durationBuckets are job duration bucket bounds in seconds: benchmark jobs
// take seconds to hours.
func durationBuckets() []float64 {
	return []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200}
}

// NewMetrics returns the service's metrics at zero, in a registry of their
// own. version is perfbot's version for perfbot_build_info ("" takes the
// module version from the binary's build information).
func NewMetrics(version string) *Metrics {
	m := &Metrics{
		reg:      prometheus.NewRegistry(),
		counters: map[string]labelled[*prometheus.CounterVec]{},
		hists:    map[string]labelled[*prometheus.HistogramVec]{},
	}
	for _, d := range counterDefs() {
		vec := prometheus.NewCounterVec(prometheus.CounterOpts{Name: d.name, Help: d.help}, d.labels)
		m.reg.MustRegister(vec)
		if len(d.labels) == 0 {
			vec.WithLabelValues() // served from 0, so that rate() sees the first count
		}
		m.counters[d.name] = labelled[*prometheus.CounterVec]{vec, d.labels}
	}
	for _, d := range histogramDefs() {
		vec := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: d.name, Help: d.help, Buckets: durationBuckets()}, d.labels)
		m.reg.MustRegister(vec)
		m.hists[d.name] = labelled[*prometheus.HistogramVec]{vec, d.labels}
	}
	m.queue = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "perfbot_queue_jobs", Help: "Jobs in the queue, by queue and state."}, []string{"queue", "state"})
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "perfbot_build_info",
		Help: "Always 1: the perfbot version, the commit it was built from and the Go version that built it."},
		[]string{"version", "revision", "goversion"})
	build.WithLabelValues(buildLabels(version)...).Set(1)
	m.reg.MustRegister(m.queue, build,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	return m
}

// buildLabels are perfbot_build_info's version, revision and goversion.
// The version is the one given, else the module version the Go toolchain
// recorded ("(devel)" for a build outside the module cache), as "perfbot
// version" says it.
func buildLabels(version string) []string {
	revision := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		if version == "" {
			version = info.Main.Version
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				revision = s.Value
			}
		}
	}
	if version == "" {
		version = "(devel)"
	}
	return []string{version, revision, runtime.Version()}
}

// values returns the label values of pairs ("venue", "github", ...) in the
// order of names, or an error when the pairs name other labels.
func values(metric string, names, pairs []string) ([]string, error) {
	given := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		given[pairs[i]] = pairs[i+1]
	}
	if len(pairs) != 2*len(names) || len(given) != len(names) {
		return nil, fmt.Errorf("metric %s takes labels %v, not %v", metric, names, pairs)
	}
	vals := make([]string, len(names))
	for i, n := range names {
		v, ok := given[n]
		if !ok {
			return nil, fmt.Errorf("metric %s takes labels %v, not %v", metric, names, pairs)
		}
		vals[i] = v
	}
	return vals, nil
}

// counter returns the counter of name with label pairs.
func (m *Metrics) counter(name string, pairs []string) (prometheus.Counter, error) {
	c, ok := m.counters[name]
	if !ok {
		return nil, fmt.Errorf("no counter %s", name)
	}
	vals, err := values(name, c.labels, pairs)
	if err != nil {
		return nil, err
	}
	return c.vec.GetMetricWithLabelValues(vals...)
}

// Add adds v to a counter with label pairs ("venue", "github", ...). A
// counter not declared in counterDefs, or given other labels, counts
// nothing: TestMetricsDeclared finds such calls in the source.
func (m *Metrics) Add(name string, v float64, labels ...string) {
	if c, err := m.counter(name, labels); err == nil {
		c.Add(v)
	}
}

// Inc adds one to a counter.
func (m *Metrics) Inc(name string, labels ...string) { m.Add(name, 1, labels...) }

// Observe records a duration in a histogram.
func (m *Metrics) Observe(name string, d time.Duration, labels ...string) {
	h, ok := m.hists[name]
	if !ok {
		return
	}
	vals, err := values(name, h.labels, labels)
	if err != nil {
		return
	}
	if o, err := h.vec.GetMetricWithLabelValues(vals...); err == nil {
		o.Observe(d.Seconds())
	}
}

// Counter returns a counter's value, for tests.
func (m *Metrics) Counter(name string, labels ...string) float64 {
	c, err := m.counter(name, labels)
	if err != nil {
		return 0
	}
	var out dto.Metric
	if err := c.Write(&out); err != nil {
		return 0
	}
	return out.GetCounter().GetValue()
}

// serve answers a scrape with every metric, the queue depth set to depth
// (queue and state -> jobs).
func (m *Metrics) serve(w http.ResponseWriter, r *http.Request, depth map[[2]string]int) {
	m.scrape.Lock()
	defer m.scrape.Unlock()
	m.queue.Reset()
	for qs, n := range depth {
		m.queue.WithLabelValues(qs[0], qs[1]).Set(float64(n))
	}
	m.handler.ServeHTTP(w, r)
}
