package config

import (
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Bisect configures the service's follow-up on a series (a pull request
// of several commits, a mail series): when the comparison of the whole
// series moved a benchmark by at least MinChange percent, either way, a
// bisect job finds the commit responsible and adds a section to the
// answer. Absent: no follow-up.
type Bisect struct {
	// MinChange is the smallest significant change, in percent, that is
	// bisected, written 10 or "10%"; required.
	MinChange Percent `yaml:"min_change"`
}

// Percent is a percentage, written as a number (10) or with a percent
// sign ("10%").
type Percent float64

// UnmarshalYAML reads 10, 2.5 or "10%".
func (p *Percent) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return typeError("expected a percentage such as 10%%, got %s", describe(n))
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(n.Value), "%")), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return typeError("expected a percentage such as 10%%, got %s", describe(n))
	}
	*p = Percent(v)
	return nil
}

func (c *Config) checkBisect(v *validator) {
	b := c.Service.Bisect
	if b == nil {
		return
	}
	if !(b.MinChange > 0) {
		v.add("service.bisect.min_change", "expected a percentage above 0 such as 10%%, got %v", float64(b.MinChange))
	}
}

// Confirm configures a confirmation rerun: when a benchmark job's
// comparison finds a benchmark worse by at least MinChange percent, the
// verdict is not posted until a second host (a "perfbot worker --queue
// QUEUE") has measured the same benchmarks again. Absent: no rerun.
type Confirm struct {
	// Queue is the queue the second host's worker takes confirm jobs
	// from; required, and not service.queue.
	Queue string `yaml:"queue"`
	// MinChange is the smallest worse change, in percent, that is
	// confirmed, written 5 or "5%"; required.
	MinChange Percent `yaml:"min_change"`
}

func (c *Config) checkConfirm(v *validator) {
	cf := c.Service.Confirm
	if cf == nil {
		return
	}
	switch {
	case strings.TrimSpace(cf.Queue) == "":
		v.add("service.confirm.queue", "expected the queue of the second host's worker (perfbot worker --queue NAME)")
	case cf.Queue == c.Service.Queue || (c.Service.Queue == "" && cf.Queue == "benchmark"):
		v.add("service.confirm.queue", "expected a queue other than service.queue (%q): the second host needs its own", cf.Queue)
	}
	if !(cf.MinChange > 0) {
		v.add("service.confirm.min_change", "expected a percentage above 0 such as 5%%, got %v", float64(cf.MinChange))
	}
}
