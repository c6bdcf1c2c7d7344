package config

import (
	"errors"
	"strings"
	"testing"
)

func TestBisect(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		want float64
	}{
		{"service:\n  bisect: {min_change: 10%}\n", 10},
		{"service:\n  bisect: {min_change: 2.5}\n", 2.5},
		{"service:\n  bisect:\n    min_change: \"15 %\"\n", 15},
	} {
		c, err := Parse([]byte(tc.yaml), "c.yaml")
		if err != nil {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		if c.Service.Bisect == nil || float64(c.Service.Bisect.MinChange) != tc.want {
			t.Errorf("%q: decoded %+v, want min_change %v", tc.yaml, c.Service.Bisect, tc.want)
		}
	}
	if c, err := Parse([]byte("service: {listen: \"127.0.0.1:8080\"}\n"), "c.yaml"); err != nil || c.Service.Bisect != nil {
		t.Errorf("no service.bisect: %+v, %v", c.Service.Bisect, err)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"service:\n  bisect: {min_change: ten}\n", `c.yaml:2:24: service.bisect.min_change: expected a percentage such as 10%, got "ten"`},
		{"service:\n  bisect: {min_change: 0%}\n", `c.yaml:2:24: service.bisect.min_change: expected a percentage above 0`},
		{"service:\n  bisect: {min_change: -5}\n", `c.yaml:2:24: service.bisect.min_change: expected a percentage above 0`},
		{"service:\n  bisect: {}\n", `service.bisect.min_change: expected a percentage above 0`},
		{"service:\n  bisect: {min_chnage: 5}\n", `c.yaml:2:12: service.bisect.min_chnage: unknown key; did you mean min_change?`},
		{"service:\n  bisect: [5]\n", `c.yaml:2:11: service.bisect: expected a mapping`},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		var errs Errors
		if !errors.As(err, &errs) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %s", tc.yaml, err, tc.want)
		}
	}
}
