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
