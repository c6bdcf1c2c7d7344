package sandbox

import (
	"fmt"
	"time"
)

// procTick is the resolution of the CPU times in /proc/PID/stat (USER_HZ
// is 100 on every Linux architecture Go supports).
const procTick = 10 * time.Millisecond

// Isolation says how the session is kept off the CPU while another side
// measures, for the provenance: frozen by a cgroup freezer, or why not,
// and where its CPU time is read.
func (s *Session) Isolation() string {
	if s == nil {
		return ""
	}
	g := s.group
	var how string
	if g != nil && g.freeze != "" {
		how = "frozen (" + g.how() + ")"
	} else {
		how = "freezing unavailable (" + s.noGroup + ")"
	}
	switch {
	case g != nil && g.cpu != "" && g.cpuV1:
		how += ", CPU time from cgroup v1 cpuacct"
	case g != nil && g.cpu != "":
		how += ", CPU time from cgroup v2 cpu.stat"
	case s.host:
		how += ", CPU time not measured (the side's processes run on the host, outside any sandbox)"
	default:
		how += fmt.Sprintf(", CPU time counted from /proc per process (%s ticks)", procTick)
	}
	return how
}

// A Hold keeps a session off the CPU, where it can, from Hold until
// Release, and counts the CPU time the session used meanwhile.
type Hold struct {
	s      *Session
	frozen bool
	// err is why the session could not be frozen.
	err   error
	cpu0  time.Duration
	cpuOK bool
	procs map[int]procInfo
}

// Hold freezes every process of the session (its servers and what they
// started) and starts counting its CPU time. A session that cannot be
// frozen is still counted; Release says so.
func (s *Session) Hold() *Hold {
	h := &Hold{s: s}
	if s == nil {
		return h
	}
	g := s.group
	if g != nil && g.freeze != "" {
		if h.err = g.setFrozen(true); h.err == nil {
			h.frozen = true
		}
	} else {
		h.err = fmt.Errorf("freezing unavailable: %s", s.noGroup)
	}
	// Counted once frozen: what the freeze took is the session's own.
	if g != nil && g.cpu != "" {
		if c, err := g.cpuTime(); err == nil {
			h.cpu0, h.cpuOK = c, true
		}
	} else if !s.host {
		h.procs = s.processes()
	}
	return h
}

// Released is what a Hold saw.
type Released struct {
	// CPU is the CPU time the session used while held; Measured says it
	// could be read at all.
	CPU      time.Duration
	Measured bool
	// Resolution is the smallest CPU time the count can see.
	Resolution time.Duration
	// Frozen says the session was frozen the whole time; Err is why not.
	Frozen bool
	Err    error
}

// Used is what the hold has seen so far; the session stays held.
func (h *Hold) Used() Released {
	r := Released{Frozen: h.frozen, Err: h.err}
	s := h.s
	if s == nil {
		return r
	}
	switch {
	case h.cpuOK:
		if c, err := s.group.cpuTime(); err == nil {
			r.CPU, r.Measured, r.Resolution = max(c-h.cpu0, 0), true, time.Microsecond
		}
	case h.procs != nil:
		r.CPU, r.Measured, r.Resolution = procCPUSince(h.procs, s.processes()), true, procTick
	}
	return r
}

// Release thaws the session and returns what the hold saw.
func (h *Hold) Release() Released {
	r := h.Used()
	if h.frozen {
		if err := h.s.group.setFrozen(false); err != nil && r.Err == nil {
			r.Err = err
		}
	}
	return r
}

// procCPUSince is the CPU time the processes of now used since before:
// the growth of each process's own and reaped children's times, and all
// of a process that was not there before.
func procCPUSince(before, now map[int]procInfo) time.Duration {
	var ticks int64
	for pid, p := range now {
		if b, ok := before[pid]; ok && b.start == p.start {
			ticks += max(p.ticks-b.ticks, 0)
		} else {
			ticks += p.ticks
		}
	}
	return time.Duration(ticks) * procTick
}
