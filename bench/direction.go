package bench

import (
	"fmt"
	"strings"
)

// Direction says whether a larger or a smaller value of a metric is an
// improvement.
type Direction int

const (
	// LowerIsBetter marks times, latencies, sizes and counters.
	LowerIsBetter Direction = iota
	// HigherIsBetter marks throughputs.
	HigherIsBetter
)

// String returns "lower" or "higher".
func (d Direction) String() string {
	if d == HigherIsBetter {
		return "higher"
	}
	return "lower"
}

// MarshalText writes "lower" or "higher".
func (d Direction) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads "lower" or "higher".
func (d *Direction) UnmarshalText(b []byte) error {
	switch string(b) {
	case "lower":
		*d = LowerIsBetter
	case "higher":
		*d = HigherIsBetter
	default:
		return fmt.Errorf("direction %q: want \"lower\" or \"higher\"", b)
	}
	return nil
}

// DirectionOf guesses the direction of a unit from its name: rates
// ("ops/s", "QPS", "tps", "MB/s", "ops/ms") are higher-is-better, everything
// else (times, sizes, counts, latencies) lower-is-better.
func DirectionOf(unit string) Direction {
	u := strings.ToLower(unit)
	switch u {
	case "qps", "tps", "rps", "ops", "ipc", "insn per cycle", "instructions-per-cycle":
		return HigherIsBetter
	}
	if strings.HasPrefix(u, "ops/") || strings.HasPrefix(u, "op/") ||
		strings.HasSuffix(u, "/s") || strings.HasSuffix(u, "/sec") ||
		strings.HasSuffix(u, "/ms") && !strings.HasPrefix(u, "ms") && !strings.HasPrefix(u, "ns") && !strings.HasPrefix(u, "us") ||
		strings.HasSuffix(u, "per second") || strings.HasSuffix(u, "/us") || strings.HasSuffix(u, "/ns") {
		return HigherIsBetter
	}
	return LowerIsBetter
}

// Deterministic reports whether a unit counts something that does not vary
// between runs of the same code, such as allocations or bytes allocated per
// operation, or the system calls per operation cpu-sim counts
// ("syscalls/op", "write-syscalls/op"), so that any difference is a real
// one.
func Deterministic(unit string) bool {
	switch unit {
	case "allocs/op", "B/op":
		return true
	}
	return strings.HasSuffix(unit, SyscallsPerOp)
}

// SyscallsPerOp is the unit of cpu-sim's count of system calls per
// operation; a kind's own count is "KIND-syscalls/op" ("write-syscalls/op").
const SyscallsPerOp = "syscalls/op"
