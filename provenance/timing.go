package provenance

import "time"

// Timing says where a job's wall time went: its stages in the order they
// first ran, each of one kind. The benchmark commands are what the job is
// for; builds and the suite's own setup and teardown are the project's
// commands, counted apart; the rest (workspace, patch, probing the host,
// starting sandboxes, reading output, statistics) is perfbot's overhead.
type Timing struct {
	Stages []Stage `json:"stages"`
	// Wall is the job's wall time from its start to the end of the
	// last stage recorded.
	Wall float64 `json:"wall_seconds"`
}

// StageKind classifies a stage's time.
type StageKind string

const (
	// StageBenchmark is time in the benchmark commands, warm-ups included.
	StageBenchmark StageKind = "benchmark"
	// StageBuild is time in builds, setup and teardown commands.
	StageBuild StageKind = "build"
	// StageOverhead is everything else.
	StageOverhead StageKind = "overhead"
)

// A Stage is one part of a job and its total time.
type Stage struct {
	Name    string    `json:"name"`
	Kind    StageKind `json:"kind"`
	Seconds float64   `json:"seconds"`
	// Count is the number of commands or rounds summed into the stage.
	Count int `json:"count,omitempty"`
}

// Add adds d to the stage named name, which is appended when new.
func (t *Timing) Add(name string, kind StageKind, d time.Duration) {
	for i := range t.Stages {
		if t.Stages[i].Name == name {
			t.Stages[i].Seconds += d.Seconds()
			t.Stages[i].Count++
			return
		}
	}
	t.Stages = append(t.Stages, Stage{Name: name, Kind: kind, Seconds: d.Seconds(), Count: 1})
}

// Seconds is the time of the stages of one kind.
func (t *Timing) Seconds(kind StageKind) float64 {
	s := 0.0
	for _, st := range t.Stages {
		if st.Kind == kind {
			s += st.Seconds
		}
	}
	return s
}

// Overhead is the job's wall time outside benchmark commands, builds,
// setup and teardown, whether or not a stage names it, and its share of
// the wall time in percent.
func (t *Timing) Overhead() (seconds, pct float64) {
	seconds = max(t.Wall-t.Seconds(StageBenchmark)-t.Seconds(StageBuild), 0)
	if t.Wall > 0 {
		pct = 100 * seconds / t.Wall
	}
	return seconds, pct
}
