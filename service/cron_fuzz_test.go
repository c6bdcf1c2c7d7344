package service

import (
	"testing"
	"time"
)

func FuzzParseCron(f *testing.F) {
	for _, s := range []string{"0 3 * * *", "*/15 1-5 * * 1-5", "5,10 * 29 2 *", "@weekly", "0 0 31 */2 7", "* * * * * *"} {
		f.Add(s)
	}
	from := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, spec string) {
		c, err := ParseCron(spec)
		if err != nil {
			return
		}
		next := c.Next(from)
		if !next.IsZero() && !next.After(from) {
			t.Fatalf("%q.Next(%v) = %v, not after", spec, from, next)
		}
	})
}
