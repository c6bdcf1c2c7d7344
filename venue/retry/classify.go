package retry

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"
)

// HTTPStatusTransient reports whether an HTTP status may succeed on another
// try: 408, 425, 429 and the 5xx statuses other than 501 and 505. Every
// other failure status (400, 401, 403, 404, 422, ...) is permanent.
func HTTPStatusTransient(code int) bool {
	switch code {
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests:
		return true
	case http.StatusNotImplemented, http.StatusHTTPVersionNotSupported:
		return false
	}
	return code >= 500 && code <= 599
}

// RetryAfter reads a Retry-After header, in seconds or as an HTTP date,
// relative to now; 0 when absent or unreadable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// NetworkTransient reports whether err, from a transport rather than from
// the server's answer, may pass: a timeout, a refused or reset connection,
// a connection closed mid-answer. A cancelled ctx is not transient: the
// caller stopped waiting. (An expired ctx looks like any other timeout
// here; Policy.Do sees the expired ctx before it tries again.)
func NetworkTransient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	switch {
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return true
	}
	var op *net.OpError
	return errors.As(err, &op)
}

// ByResponse marks err, a failure answered by resp, for Policy.Do: a
// transient status (HTTPStatusTransient) retries after the Retry-After the
// server named, or the usual backoff; any other answer, or none, leaves
// err permanent.
func ByResponse(err error, resp *http.Response) error {
	if resp == nil || !HTTPStatusTransient(resp.StatusCode) {
		return err
	}
	return After(err, RetryAfter(resp.Header, time.Now()))
}
