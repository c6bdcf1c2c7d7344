package service

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/digest"
	"github.com/perfbot/perfbot/intake"
	"github.com/perfbot/perfbot/target"
)

// scheduleLoop queues the scheduled nightly runs and digests. Each firing
// is recorded in the store and its job is unique by schedule and time, so
// a restart, or two serve processes, never queue one firing twice; a
// firing missed while the service was down is queued once when it starts.
func (s *Service) scheduleLoop(ctx context.Context) {
	type entry struct {
		name string
		cron *Cron
		loc  *time.Location
		sch  config.Schedule
	}
	var entries []entry
	for i, sch := range s.cfg.Schedules {
		c, err := ParseCron(sch.Cron)
		if err != nil {
			s.log.Error("schedule", "index", i, "err", err)
			continue
		}
		loc := time.UTC
		if sch.TZ != "" {
			if loc, err = time.LoadLocation(sch.TZ); err != nil {
				s.log.Error("schedule time zone", "tz", sch.TZ, "err", err)
				continue
			}
		}
		entries = append(entries, entry{scheduleName(sch), c, loc, sch})
	}
	started := time.Now()
	for {
		next := time.Time{}
		for _, e := range entries {
			last, err := s.st.ScheduleLast(ctx, e.name)
			if err != nil {
				s.log.Error("schedule state", "schedule", e.name, "err", err)
				continue
			}
			if last.IsZero() {
				last = started.Add(-time.Minute)
			}
			// The latest firing due by now, if any was missed.
			due := time.Time{}
			for t := e.cron.Next(last.In(e.loc)); !t.IsZero() && !t.After(time.Now()); t = e.cron.Next(t) {
				due = t
			}
			if !due.IsZero() {
				if err := s.fire(ctx, e.name, e.sch, due); err != nil {
					s.log.Error("scheduled job", "schedule", e.name, "err", err)
				} else if err := s.st.SetScheduleLast(ctx, e.name, due); err != nil {
					s.log.Error("schedule state", "schedule", e.name, "err", err)
				}
				last = due
			}
			if n := e.cron.Next(maxTime(last, time.Now()).In(e.loc)); !n.IsZero() && (next.IsZero() || n.Before(next)) {
				next = n
			}
		}
		wait := time.Minute
		if !next.IsZero() {
			wait = min(time.Until(next)+50*time.Millisecond, time.Minute)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(max(wait, 10*time.Millisecond)):
		}
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// scheduleName is a schedule's name, or one made of its spec and action.
func scheduleName(s config.Schedule) string {
	if s.Name != "" {
		return s.Name
	}
	if s.Digest != "" {
		return fmt.Sprintf("%s digest %s", s.Digest, s.Cron)
	}
	return fmt.Sprintf("run %s on %s %s", strings.Join(s.Run, ","), s.On, s.Cron)
}

// scheduleTargets parses a schedule's post list from config: "mail"
// means the digest recipients or the list.
func (s *Service) scheduleTargets(sch config.Schedule) []target.Target {
	var out []target.Target
	for _, p := range sch.Post {
		if t, err := target.Parse(p); err == nil {
			out = append(out, t)
			continue
		}
		if p == "mail" {
			to := s.cfg.Digest.To
			if len(to) == 0 && s.cfg.Venues.Mail.List != "" {
				to = []string{s.cfg.Venues.Mail.List}
			}
			if len(to) == 0 {
				continue
			}
			if t, err := target.Parse("mail:" + strings.Join(to, ",")); err == nil {
				out = append(out, t)
			} else {
				s.log.Error("schedule post list: digest recipients", "err", err)
			}
		}
	}
	return out
}

// fire queues one firing of a schedule.
func (s *Service) fire(ctx context.Context, name string, sch config.Schedule, at time.Time) error {
	s.metrics.Inc("perfbot_schedule_fired_total", "schedule", name)
	stamp := at.UTC().Format("2006-01-02T15:04Z")
	if sch.Digest != "" {
		if err := s.queueRelease(ctx, sch); err != nil {
			s.log.Error("queue release candidate run", "err", err)
		}
		_, dup, err := s.q.Enqueue(ctx, DigestJob{Name: name, Period: sch.Digest, End: at.UTC(), Targets: s.scheduleTargets(sch)})
		if err == nil {
			s.log.Info("digest queued", "schedule", name, "end", stamp, "duplicate", dup)
		}
		return err
	}
	// A nightly run compares the branch with what the previous night
	// measured, so each night's change stands on its own; the first night
	// compares the branch with the project branch.
	prefix := "schedule:" + name + "@"
	base := ""
	if prev, err := s.st.LastDoneRun(ctx, prefix); err == nil {
		base = prev.CandidateCommit
	}
	_, err := s.admit(ctx, JobSpec{
		Key:          prefix + stamp,
		BaseRef:      base,
		Targets:      s.scheduleTargets(sch),
		Suites:       sch.Run,
		CandidateRef: sch.On,
		Title:        fmt.Sprintf("nightly %s on %s (%s)", strings.Join(sch.Run, ", "), sch.On, stamp),
		Source:       "schedule",
	})
	return err
}

// queueRelease queues, once per pair, a run of the configured release
// candidate against the last release, so that a digest can report it.
func (s *Service) queueRelease(ctx context.Context, sch config.Schedule) error {
	rc, rel := s.cfg.Digest.RC, s.cfg.Digest.Release
	if rc == "" || rel == "" {
		return nil
	}
	_, err := s.admit(ctx, JobSpec{
		Key:          digest.ReleaseKey(rc, rel),
		Targets:      s.scheduleTargets(sch),
		BaseRef:      rel,
		CandidateRef: rc,
		Title:        fmt.Sprintf("release candidate %s against %s", rc, rel),
		Source:       "schedule",
	})
	return err
}

// admit takes a scheduled job in through the intake's one admit step:
// merged code, so no trigger policy; the queue's unique key de-duplicates.
func (s *Service) admit(ctx context.Context, spec JobSpec) (intake.Outcome, error) {
	a := intake.Admitter{Queue: s, Metrics: s.metrics, Log: s.log.With("intake", "schedule")}
	return a.Admit(ctx, intake.Request{Job: spec})
}
