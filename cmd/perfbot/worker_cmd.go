package main

import (
	"context"
	"io"

	"github.com/perfbot/perfbot/service"
)

// workerCmd implements "perfbot worker": it runs on a benchmark host and
// takes benchmark jobs from the shared PostgreSQL queue, one at a time, so
// that two jobs never disturb each other's timings on one host.
func workerCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runService(ctx, "worker", service.ModeWorker, args, stderr)
}
