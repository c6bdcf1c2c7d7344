// Package cron parses five-field cron specs and finds their next firing.
package cron

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Spec is a parsed five-field cron spec: minute, hour, day of month, month,
// day of week. Each field is "*", a number, a range "a-b", a step "*/n" or
// "a-b/n", or a comma-separated list of these. Months may be named JAN-DEC
// and days of week SUN-SAT (any case). Day of week runs 0-7 with 0 and 7
// both Sunday. As in Vixie cron, when both day fields are restricted a day
// matches if either does.
type Spec struct {
	spec                     string
	minute, hour, dom, month uint64
	dow                      uint64
	domStar, dowStar         bool
}

// String returns the spec the schedule was parsed from.
func (c *Spec) String() string { return c.spec }

// Parse parses a five-field cron spec, or one of the shorthands @yearly
// (@annually), @monthly, @weekly, @daily (@midnight), @hourly.
func Parse(spec string) (*Spec, error) {
	switch strings.TrimSpace(spec) {
	case "@yearly", "@annually":
		spec = "0 0 1 1 *"
	case "@hourly":
		spec = "0 * * * *"
	case "@daily", "@midnight":
		spec = "0 0 * * *"
	case "@weekly":
		spec = "0 0 * * 0"
	case "@monthly":
		spec = "0 0 1 * *"
	}
	f := strings.Fields(spec)
	if len(f) == 1 && strings.HasPrefix(f[0], "@") {
		return nil, fmt.Errorf("cron %q: unknown shorthand (want @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly)", spec)
	}
	if len(f) != 5 {
		return nil, fmt.Errorf("cron %q: want 5 fields (minute hour day-of-month month day-of-week), got %d", spec, len(f))
	}
	c := &Spec{spec: spec, domStar: f[2] == "*", dowStar: f[4] == "*"}
	var err error
	fields := []struct {
		dst      *uint64
		name     string
		min, max int
		names    []string
	}{{&c.minute, "minute", 0, 59, nil}, {&c.hour, "hour", 0, 23, nil}, {&c.dom, "day of month", 1, 31, nil},
		{&c.month, "month", 1, 12, monthNames}, {&c.dow, "day of week", 0, 7, dayNames}}
	for i, fd := range fields {
		if *fd.dst, err = parseField(f[i], fd.min, fd.max, fd.names); err != nil {
			return nil, fmt.Errorf("cron %q: %s: %w", spec, fd.name, err)
		}
	}
	if c.dow&(1<<7) != 0 {
		c.dow |= 1
	}
	return c, nil
}

// monthNames and dayNames are the names a month or day-of-week field may
// use; a name's index plus the field's minimum is its number.
var (
	monthNames = []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}
	dayNames   = []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}
)

// value reads one number of a field, or a name when names are given.
func value(s string, min int, names []string) (int, error) {
	for i, n := range names {
		if strings.EqualFold(s, n) {
			return min + i, nil
		}
	}
	return strconv.Atoi(s)
}

func parseField(s string, min, max int, names []string) (uint64, error) {
	var bits uint64
	for _, part := range strings.Split(s, ",") {
		rng, stepStr, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepStr)
			if err != nil || n <= 0 {
				return 0, fmt.Errorf("step %q: want a positive number", stepStr)
			}
			step = n
		}
		lo, hi := min, max
		if rng != "*" {
			a, b, isRange := strings.Cut(rng, "-")
			var err error
			if lo, err = value(a, min, names); err != nil {
				return 0, fmt.Errorf("%q: want %s, a range a-b or *", part, what(names))
			}
			hi = lo
			if isRange {
				if hi, err = value(b, min, names); err != nil {
					return 0, fmt.Errorf("%q: want %s, a range a-b or *", part, what(names))
				}
			} else if hasStep {
				hi = max
			}
		}
		if lo < min || hi > max || lo > hi {
			return 0, fmt.Errorf("%q: out of range %d-%d", part, min, max)
		}
		for v := lo; v <= hi; v += step {
			bits |= 1 << uint(v)
		}
	}
	return bits, nil
}

func (c *Spec) dayMatches(t time.Time) bool {
	dom := c.dom&(1<<uint(t.Day())) != 0
	dow := c.dow&(1<<uint(t.Weekday())) != 0
	if c.domStar || c.dowStar {
		return dom && dow
	}
	return dom || dow
}

// Next returns the first time after t (to the minute) that the spec
// matches, in t's location, or the zero time when none comes within five
// years (such as February 30th).
func (c *Spec) Next(t time.Time) time.Time {
	t = t.Truncate(time.Minute).Add(time.Minute)
	end := t.AddDate(5, 0, 0)
	for t.Before(end) {
		if c.month&(1<<uint(t.Month())) == 0 {
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, t.Location())
			continue
		}
		if !c.dayMatches(t) {
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, t.Location())
			continue
		}
		if c.hour&(1<<uint(t.Hour())) == 0 {
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, t.Location())
			continue
		}
		if c.minute&(1<<uint(t.Minute())) == 0 {
			t = t.Add(time.Minute)
			continue
		}
		return t
	}
	return time.Time{}
}

// what describes the values a field takes.
func what(names []string) string {
	if len(names) == 0 {
		return "a number"
	}
	return fmt.Sprintf("a number or a name %s-%s", names[0], names[len(names)-1])
}
