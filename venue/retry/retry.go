// Package retry runs a venue call again when it failed for a reason that may
// pass (a 5xx answer, a timeout, a reset connection, a rate limit, an SMTP
// 4xx reply), waiting longer each time, and gives up at once on a failure
// that will not pass (401, 403, 404, an SMTP 5xx reply).
//
// A call reports which kind of failure it met by wrapping its error:
// Transient for one worth another try, After for one whose server named the
// time to wait (Retry-After, a rate-limit reset). Any other error is
// permanent and ends the loop.
package retry

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Policy bounds the retries of one call. The zero Policy uses the defaults
// documented on each field.
type Policy struct {
	// Attempts is the number of tries in all, the first included
	// (default 6).
	Attempts int
	// Base is the wait before the second try; each later wait doubles
	// (default 500ms).
	Base time.Duration
	// Max caps one backoff wait (default 30s).
	Max time.Duration
	// MaxWait caps a wait the server asked for (Retry-After, a rate-limit
	// reset); a longer request ends the loop with the error instead of
	// sleeping through it (default 15m).
	MaxWait time.Duration
	// Sleep waits d or until ctx is done; nil uses a timer. Tests replace
	// it to ride out a storm of failures without waiting.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Default is the policy venue clients use unless configured otherwise.
var Default = Policy{}

func (p Policy) attempts() int {
	if p.Attempts <= 0 {
		return 6
	}
	return p.Attempts
}

func (p Policy) base() time.Duration {
	if p.Base <= 0 {
		return 500 * time.Millisecond
	}
	return p.Base
}

func (p Policy) max() time.Duration {
	if p.Max <= 0 {
		return 30 * time.Second
	}
	return p.Max
}

func (p Policy) maxWait() time.Duration {
	if p.MaxWait <= 0 {
		return 15 * time.Minute
	}
	return p.MaxWait
}

// Do calls op until it succeeds, fails permanently, the attempts run out or
// ctx is done. what names the call in the returned error ("github: edit
// comment"). The error of the last try is wrapped, so errors.As still finds
// the venue's own error type.
func (p Policy) Do(ctx context.Context, what string, op func(ctx context.Context) error) error {
	n := p.attempts()
	backoff := p.base()
	var last error
	for i := 1; ; i++ {
		if err := ctx.Err(); err != nil {
			if last != nil {
				return fmt.Errorf("%s: %w (after %d attempts; last error: %v)", what, err, i-1, last)
			}
			return fmt.Errorf("%s: %w", what, err)
		}
		err := op(ctx)
		if err == nil {
			return nil
		}
		last = err
		var t *transientError
		if !errors.As(err, &t) {
			return fmt.Errorf("%s: %w", what, err)
		}
		if i >= n {
			return fmt.Errorf("%s: gave up after %d attempts: %w", what, i, err)
		}
		wait := jitter(backoff)
		if t.after > 0 {
			if t.after > p.maxWait() {
				return fmt.Errorf("%s: server asked to wait %v, longer than the %v allowed: %w", what, t.after.Round(time.Second), p.maxWait(), err)
			}
			wait = t.after
		}
		if err := p.sleep(ctx, wait); err != nil {
			return fmt.Errorf("%s: %w (after %d attempts; last error: %v)", what, err, i, last)
		}
		backoff = min(2*backoff, p.max())
	}
}

// jitter spreads d over [0.8d, 1.2d) so that clients failing together do
// not retry together.
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

func (p Policy) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

type transientError struct {
	err   error
	after time.Duration
}

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

// Transient marks err as worth another try after the usual backoff. A nil
// err stays nil.
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return &transientError{err: err}
}

// After marks err as worth another try once d has passed (a server's
// Retry-After or rate-limit reset). d <= 0 means the usual backoff.
func After(err error, d time.Duration) error {
	if err == nil {
		return nil
	}
	return &transientError{err: err, after: d}
}

// IsTransient reports whether err was marked by Transient or After.
func IsTransient(err error) bool {
	var t *transientError
	return errors.As(err, &t)
}
