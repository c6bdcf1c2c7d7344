package config

import (
	"errors"
	"strings"
	"testing"
)

func TestConfirm(t *testing.T) {
	c, err := Parse([]byte("service:\n  confirm: {queue: second, min_change: 5%}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if cf := c.Service.Confirm; cf == nil || cf.Queue != "second" || cf.MinChange != 5 {
		t.Errorf("decoded %+v", c.Service.Confirm)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"service:\n  confirm: {min_change: 5%}\n", `service.confirm.queue: expected the queue of the second host's worker`},
		{"service:\n  confirm: {queue: benchmark, min_change: 5%}\n", `c.yaml:2:20: service.confirm.queue: expected a queue other than service.queue ("benchmark")`},
		{"service:\n  queue: fast\n  confirm: {queue: fast, min_change: 5%}\n", `service.confirm.queue: expected a queue other than service.queue ("fast")`},
		{"service:\n  confirm: {queue: second}\n", `service.confirm.min_change: expected a percentage above 0`},
		{"service:\n  confirm: {queue: second, min_change: lots}\n", `service.confirm.min_change: expected a percentage such as 10%, got "lots"`},
		{"service:\n  confirm: {queue: second, min_chang: 5}\n", `service.confirm.min_chang: unknown key`},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		var errs Errors
		if !errors.As(err, &errs) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %s", tc.yaml, err, tc.want)
		}
	}
}
