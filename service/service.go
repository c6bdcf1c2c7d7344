package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/digest"
	"github.com/perfbot/perfbot/service/followup"
	"github.com/perfbot/perfbot/service/outbox"
	"github.com/perfbot/perfbot/service/queue"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
)

// Mode says which part of the service a process runs.
type Mode int

const (
	// ModeServe is "perfbot serve": intake, HTTP, schedules, posting of
	// digests, and, when EmbeddedWorkers, benchmark jobs too.
	ModeServe Mode = iota
	// ModeWorker is "perfbot worker": benchmark jobs only, one at a time.
	ModeWorker
)

// Deps are what the service needs from the rest of perfbot.
type Deps struct {
	Benchmarker Benchmarker
	Poster      Poster
	// Render defaults to RenderSummary.
	Render Renderer
	// Digest builds digests; nil disables digest jobs.
	Digest Digester
	Logger *slog.Logger
	// Scrub replaces host paths in answers; nil means the paths of
	// HostPaths(DefaultCacheDir()).
	Scrub *Scrubber
	// Now is the clock of answer delivery (when an answer is due, how
	// long it has waited); nil means time.Now. Tests move it to ride out
	// hours of retries.
	Now func() time.Time
	// Version is perfbot's version for perfbot_build_info; "" takes the
	// module version from the binary's build information.
	Version string
}

// now is the service's clock (Deps.Now).
func (s *Service) now() time.Time { return s.deps.Now() }

// Service is a running perfbot service process.
type Service struct {
	cfg     *config.Config
	mode    Mode
	st      *store.Store
	q       *queue.Queue
	deps    Deps
	log     *slog.Logger
	metrics *Metrics
	mux     *http.ServeMux
	pollers []poller
	// addr is the HTTP listener's address once Run listens.
	addrMu sync.Mutex
	addr   string
	// outbox delivers the answers.
	outbox *outbox.Outbox
	// answers renders the final answers.
	answers answers
	// tracker follows the tracked branches and merged requests.
	tracker *followup.Tracker
}

type poller struct {
	name     string
	interval time.Duration
	poll     func(ctx context.Context) error
}

// Open opens the store and the queue for a process of the given mode.
// The caller must Close the service.
func Open(ctx context.Context, cfg *config.Config, mode Mode, deps Deps) (*Service, error) {
	if deps.Logger == nil {
		deps.Logger = slog.Default()
	}
	if deps.Render == nil {
		deps.Render = RenderSummary
	}
	if deps.Scrub == nil {
		deps.Scrub = NewScrubber(HostPaths(DefaultCacheDir())...)
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	s := &Service{cfg: cfg, mode: mode, deps: deps, log: deps.Logger, metrics: NewMetrics(deps.Version), mux: http.NewServeMux()}
	st, err := store.Open(ctx, cfg.Store.Driver, cfg.StoreDSN())
	if err != nil {
		return nil, err
	}
	s.st = st
	s.outbox = outbox.New(st, deps.Poster, s.metrics, outbox.Options{
		Owner:    fmt.Sprintf("%s-%d-%d", cfg.Service.Name, os.Getpid(), time.Now().UnixNano()),
		RetryFor: cfg.Service.DeliveryRetryFor, EditInterval: cfg.Service.AnswerEditInterval,
		Every: cfg.Service.Heartbeat, Now: deps.Now, Log: s.log, Delivered: s.delivered})
	workers := river.NewWorkers()
	river.AddWorker(workers, &benchWorker{svc: s})
	river.AddWorker(workers, &digestWorker{svc: s})
	river.AddWorker(workers, &bisectWorker{svc: s})
	river.AddWorker(workers, &confirmWorker{svc: s})
	work := map[string]int{}
	if mode == ModeWorker || *cfg.Service.EmbeddedWorkers {
		if deps.Benchmarker == nil || deps.Poster == nil {
			st.Close()
			return nil, errors.New("a process that runs benchmark jobs needs a benchmarker and a poster")
		}
		work[cfg.Service.Queue] = cfg.Service.Workers
	}
	if mode == ModeServe {
		work[ServiceQueue] = 1
	}
	// Tests run with short heartbeats; fetch as often, but not more often
	// than River allows.
	poll := max(min(time.Second, cfg.Service.Heartbeat), 100*time.Millisecond)
	q, err := queue.Open(ctx, st, cfg.StoreDSN(), queue.Options{
		ID:           fmt.Sprintf("%s-%d", cfg.Service.Name, time.Now().UnixNano()),
		Work:         work,
		Workers:      workers,
		JobTimeout:   cfg.Service.JobTimeout,
		RescueAfter:  cfg.Service.JobTimeout + 10*time.Minute,
		PollInterval: poll,
		Logger:       s.log.With("component", "queue"),
	})
	if err != nil {
		st.Close()
		return nil, err
	}
	s.q = q
	s.answers = answers{url: cfg.Service.URL, st: st, scrub: deps.Scrub, render: deps.Render}
	announce := make([][]target.Target, len(cfg.Track.Branches))
	for i, b := range cfg.Track.Branches {
		announce[i] = s.scheduleTargets(config.Schedule{Post: b.Post})
	}
	s.tracker = followup.New(followup.Deps{Config: cfg, Store: st, Queue: q, Outbox: s.outbox,
		Render: s.answers, Scrub: deps.Scrub, Clones: clones{}, Announce: announce, Logger: s.log})
	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.HandleFunc("GET /metrics", s.serveMetrics)
	return s, nil
}

// delivered is told by the outbox of each answer it delivered: a digest's
// delivery counts in perfbot_digests_total (one per target).
func (s *Service) delivered(key string, _ target.Target) {
	if digest.IsKey(key) {
		s.metrics.Inc("perfbot_digests_total")
	}
}

// Close closes the queue and the store.
func (s *Service) Close() error {
	s.q.Close()
	return s.st.Close()
}

// Store is the history.
func (s *Service) Store() *store.Store { return s.st }

// Metrics are the service's metrics.
func (s *Service) Metrics() *Metrics { return s.metrics }

// Logger is the service's logger.
func (s *Service) Logger() *slog.Logger { return s.log }

// Poster posts the service's answers; intakes answer refused requests
// through it too, so that a refusal takes the same path (and, in mail, the
// same thread) as a result would.
func (s *Service) Poster() Poster { return s.deps.Poster }

// Tracker follows the tracked branches and the requests that land on
// them: pushes, polls and merges go to it.
func (s *Service) Tracker() *followup.Tracker { return s.tracker }

// Config is the service's configuration.
func (s *Service) Config() *config.Config { return s.cfg }

// Handle adds an HTTP handler, such as a webhook endpoint.
func (s *Service) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// Handler is the service's HTTP handler.
func (s *Service) Handler() http.Handler { return s.mux }

// AddPoller makes Run call poll every interval (a venue without webhooks).
func (s *Service) AddPoller(name string, interval time.Duration, poll func(ctx context.Context) error) {
	s.pollers = append(s.pollers, poller{name, interval, poll})
}

// Addr is the HTTP listener's address once Run has started listening.
func (s *Service) Addr() string {
	s.addrMu.Lock()
	defer s.addrMu.Unlock()
	return s.addr
}

// Enqueue queues a benchmark job on the configured benchmark queue. It
// returns duplicate true when a job with the same key already exists.
// Requests come through intake.Admitter, which counts them. A new job's
// answer exists at once where the venue shows live answers (GitHub, JIRA):
// queued, with its position in the queue.
func (s *Service) Enqueue(ctx context.Context, job JobSpec) (id int64, duplicate bool, err error) {
	if job.Key == "" {
		return 0, false, errors.New("job without a key")
	}
	queued := s.now()
	id, dup, err := s.q.InsertBench(ctx, job, s.cfg.Service.Queue, s.cfg.Service.MaxAttempts)
	if err != nil {
		return 0, false, fmt.Errorf("queue job %s: %w", job.Key, err)
	}
	s.log.Info("job inserted", "key", job.Key, "job", id, "duplicate", dup, "source", job.Source)
	if !dup {
		status := ""
		if pos, running, err := s.q.Position(ctx, id); err != nil {
			s.log.Warn("queue position", "job", id, "err", err)
		} else if pos > 0 {
			status = queuedStatus(pos, running)
		}
		// The job is queued whatever happens to its first answer. A
		// worker that took the job meanwhile wrote a newer answer, kept.
		if err := s.outbox.Put(ctx, job.Targets, liveMessage(job, answer.StateQueued, status), false, queued); err != nil {
			s.log.Error("queued answer", "key", job.Key, "err", err)
		}
	}
	return id, dup, nil
}

// Run runs the process until ctx is cancelled: the queue's workers, the
// heartbeat rescue, and for serve the HTTP server, pollers and schedules.
func (s *Service) Run(ctx context.Context) error {
	// The queue outlives ctx: stopping is done below, with a grace period
	// for running jobs.
	if err := s.q.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("start queue: %w", err)
	}
	var wg sync.WaitGroup
	errc := make(chan error, 1)
	loopCtx, cancelLoops := context.WithCancel(ctx)
	defer cancelLoops()
	goLoop := func(f func(context.Context)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(loopCtx)
		}()
	}
	goLoop(s.rescueLoop)
	if s.deps.Poster != nil {
		goLoop(s.outbox.Run)
	}
	var srv *http.Server
	if s.mode == ModeServe {
		for _, p := range s.pollers {
			goLoop(func(ctx context.Context) { s.pollLoop(ctx, p) })
		}
		if len(s.cfg.Schedules) > 0 {
			goLoop(s.scheduleLoop)
		}
		goLoop(s.pruneLoop)
		ln, err := net.Listen("tcp", s.cfg.Service.Listen)
		if err != nil {
			cancelLoops()
			wg.Wait()
			s.q.Stop(context.WithoutCancel(ctx))
			return fmt.Errorf("listen on %s: %w", s.cfg.Service.Listen, err)
		}
		s.addrMu.Lock()
		s.addr = ln.Addr().String()
		s.addrMu.Unlock()
		s.log.Info("listening", "addr", s.addr)
		srv = &http.Server{Handler: s.mux, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}()
	}
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errc:
	}
	s.log.Info("stopping")
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if srv != nil {
		srv.Shutdown(stopCtx)
	}
	cancelLoops()
	wg.Wait()
	// A benchmark job may run for hours: give it a moment to finish, then
	// cancel it (its commands are killed) and let it be retried later.
	graceCtx, cancelGrace := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.Service.StopGrace)
	defer cancelGrace()
	if err := s.q.Stop(graceCtx); err != nil && runErr == nil {
		runErr = err
	}
	return runErr
}

func (s *Service) pollLoop(ctx context.Context, p poller) {
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		if err := p.poll(ctx); err != nil && ctx.Err() == nil {
			s.metrics.Inc("perfbot_poll_errors_total", "poller", p.name)
			s.log.Error("poll failed", "poller", p.name, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Service) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	if err := s.st.DB().PingContext(ctx); err != nil {
		http.Error(w, "store unreachable: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, "ok")
}

func (s *Service) serveMetrics(w http.ResponseWriter, r *http.Request) {
	depth, err := s.q.Depth(r.Context())
	if err != nil {
		s.log.Error("queue depth", "err", err)
	}
	s.metrics.serve(w, r, depth)
}

func jsonOf(v any) (json.RawMessage, error) { return json.Marshal(v) }
