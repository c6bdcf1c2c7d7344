package retry

import "github.com/perfbot/perfbot/redact"

// Redact returns err with every secret in its message, and each secret's
// base64 and URL-encoded forms (an echoed Basic credential), replaced by
// "[REDACTED]" (see package redact; secrets shorter than redact.MinLen are
// left alone). The result still unwraps to err, so errors.Is and errors.As
// see the original, but its message never carries a token, even when a
// server echoed the request back.
func Redact(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := redact.New(secrets...).String(msg)
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
