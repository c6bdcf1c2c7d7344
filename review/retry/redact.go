package retry

import "strings"

// redactedMark stands in for a secret in an error message.
const redactedMark = "[REDACTED]"

// Redact returns err with every occurrence of each non-empty secret in its
// message replaced by "[REDACTED]". The result still unwraps to err, so
// errors.Is and errors.As see the original, but its message never carries a
// token, even when a server echoed the request back.
func Redact(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	changed := false
	for _, s := range secrets {
		if len(s) < 4 { // too short to tell from ordinary text
			continue
		}
		if strings.Contains(msg, s) {
			msg = strings.ReplaceAll(msg, s, redactedMark)
			changed = true
		}
	}
	if !changed {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
