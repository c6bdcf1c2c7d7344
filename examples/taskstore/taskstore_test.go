package taskstore

import (
	"fmt"
	"sort"
	"testing"
)

func sortedKeys(keys []JobKey) []string {
	var out []string
	for _, k := range keys {
		out = append(out, k.String())
	}
	sort.Strings(out)
	return out
}

func TestJobKeys(t *testing.T) {
	s := New()
	if got := s.JobKeys(); len(got) != 0 {
		t.Fatalf("empty store: JobKeys = %v, want none", got)
	}
	Populate(s, 100, 5)
	if s.Len() != 100 {
		t.Fatalf("Len = %d, want 100", s.Len())
	}
	if got := sortedKeys(s.JobKeys()); len(got) != 5 {
		t.Fatalf("JobKeys = %v, want 5 jobs", got)
	}
	// Deleting every task of a job removes the job.
	var ids []string
	for _, task := range s.JobTasks(JobKey{Role: "role-0", Env: "prod", Name: "job-0000"}) {
		ids = append(ids, task.ID)
	}
	if len(ids) != 20 {
		t.Fatalf("job-0000 has %d tasks, want 20", len(ids))
	}
	s.Delete(ids...)
	got := sortedKeys(s.JobKeys())
	want := []string{"role-1/prod/job-0001", "role-2/prod/job-0002", "role-3/prod/job-0003", "role-4/prod/job-0004"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after deleting job-0000: JobKeys = %v, want %v", got, want)
	}
	// Moving a task to another job updates the index.
	s.Save(Task{ID: "task-0000001", Job: JobKey{Role: "r", Env: "e", Name: "moved"}})
	if n := len(s.JobKeys()); n != 5 {
		t.Fatalf("after moving a task: %d jobs, want 5", n)
	}
}

// jobs is the number of jobs the benchmark's tasks belong to: it stays the
// same while the task count grows, as in a cluster whose jobs scale out.
const jobs = 100

// BenchmarkJobKeys measures JobKeys at growing task counts, like Aurora's
// TaskStoreBenchmarks with @Param numTasks.
func BenchmarkJobKeys(b *testing.B) {
	for _, n := range []int{10000, 50000, 100000} {
		b.Run(fmt.Sprintf("numTasks=%d", n), func(b *testing.B) {
			s := New()
			Populate(s, n, jobs)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if keys := s.JobKeys(); len(keys) != jobs {
					b.Fatalf("%d job keys, want %d", len(keys), jobs)
				}
			}
		})
	}
}
