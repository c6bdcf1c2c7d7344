package runner

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfbot/perfbot/provenance"
)

// probeRuns and probeLoop size the host noise probe: 7 runs of a fixed
// loop of about 5ms each on an idle core.
const (
	probeRuns = 7
	probeLoop = 2_000_000
)

// probeSink keeps the compiler from removing the probe's loop.
var probeSink uint64

// probeNoise measures how noisy the host is right now: the spread of a
// fixed calibration loop run a few times (its range over its median, in
// percent: what a wall-time benchmark of the same work would see), the
// share of CPU time the hypervisor stole meanwhile (/proc/stat), and the
// load average.
func probeNoise(ctx context.Context) *provenance.HostNoise {
	n := &provenance.HostNoise{Runs: probeRuns}
	stealBefore, totalBefore, okBefore := cpuSteal()
	var times []float64
	for range probeRuns {
		if ctx.Err() != nil {
			return nil
		}
		start := time.Now()
		x := probeSink
		for i := 0; i < probeLoop; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
		probeSink = x
		times = append(times, float64(time.Since(start)))
	}
	slices.Sort(times)
	if med := times[len(times)/2]; med > 0 {
		n.LoopSpreadPct = 100 * (times[len(times)-1] - times[0]) / med
		n.LoopMedian = time.Duration(med).String()
	}
	if stealAfter, totalAfter, ok := cpuSteal(); ok && okBefore && totalAfter > totalBefore {
		n.StealPct = 100 * float64(stealAfter-stealBefore) / float64(totalAfter-totalBefore)
	}
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(data)); len(f) > 0 {
			n.Load1, _ = strconv.ParseFloat(f[0], 64)
		}
	}
	return n
}

// cpuSteal reads the steal and total jiffies of /proc/stat's cpu line.
func cpuSteal() (steal, total uint64, ok bool) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0, false
	}
	for i, s := range f[1:] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		if i < 8 { // user .. steal; guest time is already in user
			total += v
		}
		if i == 7 {
			steal = v
		}
	}
	return steal, total, true
}
