package sandbox

import (
	"context"

	"github.com/perfbot/perfbot/redact"
)

// Guard wraps a Runner so that no secret reaches a command or leaves it:
// a Spec holding a secret in its environment, arguments or paths is
// refused (see CheckSecrets), and any secret in the output (a patch that
// found one and printed it) is replaced by redact.Mask.
type Guard struct {
	Runner  Runner
	Secrets *redact.Redactor
}

var _ Runner = Guard{}

// Run checks spec, runs it and redacts the result.
func (g Guard) Run(ctx context.Context, spec Spec) (*Result, error) {
	if err := CheckSecrets(spec, g.Secrets); err != nil {
		return nil, err
	}
	res, err := g.Runner.Run(ctx, spec)
	if err != nil || res == nil {
		return res, err
	}
	res.Stdout = g.Secrets.Bytes(res.Stdout)
	res.Stderr = g.Secrets.Bytes(res.Stderr)
	res.Note = g.Secrets.String(res.Note)
	return res, nil
}

// Unwrap returns the Runner g wraps.
func (g Guard) Unwrap() Runner { return g.Runner }
