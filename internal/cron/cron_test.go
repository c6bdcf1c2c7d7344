package cron

import (
	"strings"
	"testing"
	"time"
)

// TestNames checks month and day names and the yearly shorthands against
// the numeric specs they stand for.
func TestNames(t *testing.T) {
	from := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct{ named, numeric string }{
		{"0 8 * * MON-FRI", "0 8 * * 1-5"},
		{"0 8 * * mon,wed,fri", "0 8 * * 1,3,5"},
		{"0 8 * * SUN", "0 8 * * 0"},
		{"0 0 1 JAN-MAR *", "0 0 1 1-3 *"},
		{"0 0 1 dec *", "0 0 1 12 *"},
		{"0 0 1 JAN-DEC/3 *", "0 0 1 1-12/3 *"},
		{"@yearly", "0 0 1 1 *"},
		{"@annually", "0 0 1 1 *"},
		{"@midnight", "0 0 * * *"},
	} {
		a, err := Parse(c.named)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.named, err)
			continue
		}
		b, err := Parse(c.numeric)
		if err != nil {
			t.Fatal(err)
		}
		ta, tb := from, from
		for range 5 {
			ta, tb = a.Next(ta), b.Next(tb)
			if !ta.Equal(tb) {
				t.Errorf("%q fires at %v, %q at %v", c.named, ta, c.numeric, tb)
				break
			}
		}
	}
	for _, c := range []struct{ spec, want string }{
		{"0 8 * * MOX", "a number or a name SUN-SAT"},
		{"0 0 1 JANUARY *", "a number or a name JAN-DEC"},
		{"0 8 * MON * ", "a number or a name JAN-DEC"},
		{"0 JAN * * *", "want a number,"},
		{"@fortnightly", "unknown shorthand"},
	} {
		if _, err := Parse(c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", c.spec, err, c.want)
		}
	}
}
