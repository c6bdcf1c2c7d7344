package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnits are the units ParseSize reads: powers of 1024 for KiB, MiB,
// GiB, TiB and the bare K, M, G, T (as systemd and docker read them),
// powers of 1000 for kB, KB, MB, GB, TB.
var sizeUnits = []struct {
	suffix string
	factor float64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40},
	{"B", 1},
}

// ParseSize reads a size in bytes such as "8GiB", "64MiB", "1.5G" or
// "4096".
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	factor := 1.0
	for _, u := range sizeUnits {
		if n, ok := strings.CutSuffix(t, u.suffix); ok {
			t, factor = strings.TrimSpace(n), u.factor
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || f*factor > math.MaxInt64 {
		return 0, fmt.Errorf("expected a size such as 512MiB, 8GiB or 4096 (bytes), got %q", s)
	}
	return int64(f * factor), nil
}
