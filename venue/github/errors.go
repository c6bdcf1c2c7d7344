package github

import (
	"errors"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/perfbot/perfbot/venue/retry"
)

// secondaryWait is how long to wait after a secondary rate limit that
// names no time; GitHub asks for at least a minute.
const secondaryWait = time.Minute

// classify marks err for retry.Do: rate limits wait until the reset or the
// Retry-After the server named, 5xx and 429 answers and network failures
// retry with backoff, every other answer (401, 403, 404, 422) is permanent.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var rl *gh.RateLimitError
	if errors.As(err, &rl) {
		return retry.After(err, time.Until(rl.Rate.Reset.Time)+time.Second)
	}
	var ab *gh.AbuseRateLimitError
	if errors.As(err, &ab) {
		if ab.RetryAfter != nil && *ab.RetryAfter > 0 {
			return retry.After(err, *ab.RetryAfter)
		}
		return retry.After(err, secondaryWait)
	}
	var er *gh.ErrorResponse
	if errors.As(err, &er) {
		return retry.ByResponse(err, er.Response)
	}
	if retry.NetworkTransient(err) {
		return retry.Transient(err)
	}
	return err
}
