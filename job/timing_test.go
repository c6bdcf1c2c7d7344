package job

import (
	"testing"
	"time"

	"github.com/perfbot/perfbot/provenance"
)

// TestCountPreparation: the time before the runner started is the first
// overhead stage, and the job's wall time starts with the job.
func TestCountPreparation(t *testing.T) {
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	p := provenance.Record{Started: start.Add(1500 * time.Millisecond), Timing: &provenance.Timing{}}
	p.Timing.Add("benchmark commands", provenance.StageBenchmark, 10*time.Second)
	countPreparation(&p, start)
	if !p.Started.Equal(start) {
		t.Errorf("Started = %v, want the job's start %v", p.Started, start)
	}
	st := p.Timing.Stages
	if len(st) != 2 || st[0].Kind != provenance.StageOverhead || st[0].Seconds != 1.5 || st[1].Name != "benchmark commands" {
		t.Fatalf("stages %+v: want a 1.5 s overhead stage before the benchmark commands", st)
	}
	// A provenance without timing, or started before the job, is left alone.
	q := provenance.Record{Started: start}
	countPreparation(&q, start.Add(time.Second))
	if q.Timing != nil || !q.Started.Equal(start) {
		t.Errorf("provenance without timing changed: %+v", q)
	}
}
