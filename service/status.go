package service

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/perfbot/perfbot/store"
)

// WriteStatus prints what "perfbot status" shows of st: the benchmark
// jobs queued or running (none before serve made the queue), then the
// answers in the outbox not delivered yet or given up, or every answer
// with all. It returns how many answers were given up.
func WriteStatus(ctx context.Context, w io.Writer, st *store.Store, all bool) (failed int, err error) {
	jobs, err := Jobs(ctx, st)
	if err != nil && !strings.Contains(err.Error(), "river_job") {
		return 0, err // no queue table yet: serve never ran on this store
	}
	fmt.Fprintf(w, "jobs: %d queued or running\n", len(jobs))
	for _, j := range jobs {
		fmt.Fprintln(w, "  "+j)
	}
	statuses := []string{store.OutboxPending, store.OutboxFailed}
	if all {
		statuses = nil
	}
	answers, err := st.Answers(ctx, statuses...)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(w, "\nanswers: %d %s\n", len(answers), map[bool]string{true: "in the outbox", false: "waiting or given up"}[all])
	return store.WriteAnswers(w, answers)
}
