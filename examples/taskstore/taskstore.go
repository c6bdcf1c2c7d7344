// Package taskstore is a small in-memory task store, modelled on Apache
// Aurora's MemTaskStore: tasks are kept by id, with a secondary index from
// job to the job's tasks. It is the code under test of the store-patch
// example (examples/store-patch.yaml), whose patch, index.patch, answers
// JobKeys from the index instead of scanning every task, as AURORA-1847
// did for MemTaskStore.getJobKeys().
package taskstore

import (
	"fmt"
	"sort"
	"sync"
)

// JobKey names a job: role, environment and job name.
type JobKey struct {
	Role, Env, Name string
}

// String returns the key as role/env/name.
func (k JobKey) String() string { return k.Role + "/" + k.Env + "/" + k.Name }

// Task is one scheduled task of a job.
type Task struct {
	ID     string
	Job    JobKey
	Status string
	Host   string
}

// Store holds tasks by id and indexes them by job.
type Store struct {
	mu    sync.RWMutex
	tasks map[string]*Task
	byJob map[JobKey]map[string]*Task
}

// New returns an empty store.
func New() *Store {
	return &Store{tasks: map[string]*Task{}, byJob: map[JobKey]map[string]*Task{}}
}

// Save adds or replaces tasks.
func (s *Store) Save(tasks ...Task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range tasks {
		t := tasks[i]
		if old, ok := s.tasks[t.ID]; ok {
			s.unindex(old)
		}
		s.tasks[t.ID] = &t
		ids := s.byJob[t.Job]
		if ids == nil {
			ids = map[string]*Task{}
			s.byJob[t.Job] = ids
		}
		ids[t.ID] = &t
	}
}

// Delete removes tasks by id; unknown ids are ignored.
func (s *Store) Delete(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		if t, ok := s.tasks[id]; ok {
			s.unindex(t)
			delete(s.tasks, id)
		}
	}
}

func (s *Store) unindex(t *Task) {
	ids := s.byJob[t.Job]
	delete(ids, t.ID)
	if len(ids) == 0 {
		delete(s.byJob, t.Job)
	}
}

// Len returns the number of tasks.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.tasks)
}

// JobTasks returns the tasks of one job, ordered by id.
func (s *Store) JobTasks(job JobKey) []Task {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []Task
	for _, t := range s.byJob[job] {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// JobKeys returns the set of jobs that have at least one task, in no
// particular order.
func (s *Store) JobKeys() []JobKey {
	s.mu.RLock()
	defer s.mu.RUnlock()
	// Scan every task and collect the distinct job keys.
	seen := map[JobKey]struct{}{}
	for _, t := range s.tasks {
		seen[t.Job] = struct{}{}
	}
	out := make([]JobKey, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	return out
}

// Populate fills the store with n tasks spread over jobs jobs, the way the
// benchmark sets up a cluster: task i belongs to job i mod jobs.
func Populate(s *Store, n, jobs int) {
	tasks := make([]Task, n)
	for i := range tasks {
		j := i % jobs
		tasks[i] = Task{
			ID:     fmt.Sprintf("task-%07d", i),
			Job:    JobKey{Role: fmt.Sprintf("role-%d", j%7), Env: "prod", Name: fmt.Sprintf("job-%04d", j)},
			Status: "RUNNING",
			Host:   fmt.Sprintf("host-%04d", i%1000),
		}
	}
	s.Save(tasks...)
}
