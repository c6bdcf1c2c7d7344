package service

import (
	"testing"
	"time"
)

func TestCronNext(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse("2006-01-02 15:04 Mon", s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		spec, from, want string
	}{
		{"0 3 * * *", "2026-11-30 09:00 Mon", "2026-12-01 03:00 Tue"},
		{"0 3 * * *", "2026-11-30 02:59 Mon", "2026-11-30 03:00 Mon"},
		{"0 8 * * 1", "2026-11-30 08:00 Mon", "2026-12-07 08:00 Mon"},
		{"*/15 * * * *", "2026-11-30 09:07 Mon", "2026-11-30 09:15 Mon"},
		{"30 22 * * 1-5", "2026-12-04 23:00 Fri", "2026-12-07 22:30 Mon"},
		{"0 0 1 * *", "2026-11-30 09:00 Mon", "2026-12-01 00:00 Tue"},
		{"0 0 29 2 *", "2026-03-01 00:00 Sun", "2028-02-29 00:00 Tue"},
		{"0 12 13 * 5", "2026-11-30 09:00 Mon", "2026-12-04 12:00 Fri"}, // dom OR dow
		{"0 0 * * 7", "2026-11-30 09:00 Mon", "2026-12-06 00:00 Sun"},
		{"@weekly", "2026-11-30 09:00 Mon", "2026-12-06 00:00 Sun"},
		{"5,10 1 * * *", "2026-11-30 01:07 Mon", "2026-11-30 01:10 Mon"},
	}
	for _, tt := range tests {
		c, err := ParseCron(tt.spec)
		if err != nil {
			t.Errorf("ParseCron(%q): %v", tt.spec, err)
			continue
		}
		if got := c.Next(at(tt.from)).Format("2006-01-02 15:04 Mon"); got != tt.want {
			t.Errorf("%q.Next(%s) = %s, want %s", tt.spec, tt.from, got, tt.want)
		}
	}
}

func TestCronErrors(t *testing.T) {
	for _, spec := range []string{"", "* * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "*/0 * * * *", "a * * * *", "5-1 * * * *", "* * * 13 *", "* * * * 8"} {
		if _, err := ParseCron(spec); err == nil {
			t.Errorf("ParseCron(%q) succeeded", spec)
		}
	}
	c, _ := ParseCron("0 0 30 2 *")
	if got := c.Next(time.Now()); !got.IsZero() {
		t.Errorf("February 30th matched %v", got)
	}
}
