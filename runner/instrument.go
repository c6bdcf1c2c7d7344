package runner

import (
	"fmt"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/provenance"
)

// defaultTargetPct is the change to detect when Options.TargetPct is 0. It
// matches compare's default noise floor.
const defaultTargetPct = 5

// chooseInstrument picks the instrument of a suite whose instrument is
// auto, from the host's noise probed as the job started: wall time when
// the probe's calibration loop varied by less than minChangePct, the
// smallest change the job must detect; cpu-sim otherwise, unless
// simMissing says why cpu-sim cannot run here. why says what decided, in
// words for the report ("wall time on this host varied 57% during the
// probe, above the 5% to detect").
func chooseInstrument(noise *provenance.HostNoise, minChangePct float64, simMissing string) (instrument, why string) {
	if noise == nil || noise.Runs == 0 || noise.LoopMedian == "" {
		return config.InstrumentWallTime, "the host's noise could not be probed"
	}
	spread := noise.LoopSpreadPct
	if spread < minChangePct {
		return config.InstrumentWallTime, fmt.Sprintf("wall time on this host varied %s during the probe, below the %g%% to detect", pct(spread), minChangePct)
	}
	why = fmt.Sprintf("wall time on this host varied %s during the probe, above the %g%% to detect", pct(spread), minChangePct)
	if simMissing != "" {
		return config.InstrumentWallTime, why + ", but " + simMissing
	}
	return config.InstrumentCPUSim, why
}

// pct formats a percentage with one decimal below 10, none above.
func pct(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.1f%%", v)
	}
	return fmt.Sprintf("%.0f%%", v)
}

// AutoInstrument is the instrument a suite set to auto runs on a host
// whose noise probe found noise, when the job must detect minChangePct
// (0: the default, 5%), and why.
func AutoInstrument(noise *provenance.HostNoise, minChangePct float64) (instrument, why string) {
	if minChangePct <= 0 {
		minChangePct = defaultTargetPct
	}
	return chooseInstrument(noise, minChangePct, valgrindMissing())
}

// KeptInstrument is an instrument a suite set to auto keeps instead of
// choosing one from the host's noise probe (a job spec carries it).
type KeptInstrument = jobspec.KeptInstrument

// keptInstrument returns the instrument keep holds for suite, when it
// names one this host can measure with.
func keptInstrument(keep []KeptInstrument, suite string) (KeptInstrument, bool) {
	for _, k := range keep {
		if k.Suite != suite {
			continue
		}
		switch k.Instrument {
		case config.InstrumentWallTime:
			return k, true
		case config.InstrumentCPUSim, config.InstrumentBoth:
			return k, valgrindMissing() == ""
		}
		return k, false
	}
	return KeptInstrument{}, false
}
