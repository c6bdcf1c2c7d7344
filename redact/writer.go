package redact

import (
	"bytes"
	"io"
	"sync"
)

// Writer redacts what is written through it before passing it on. A secret
// split across several Write calls is still found: Writer holds back the
// last bytes of each write that could begin a secret until the next write,
// Flush or Close. When no secret contains a newline, everything up to the
// last newline is passed on at once, so complete log lines are not delayed.
type Writer struct {
	mu      sync.Mutex
	r       *Redactor
	w       io.Writer
	pending []byte
}

// NewWriter returns a Writer that redacts r's secrets from everything written
// to w. Call Flush or Close when done to pass on the held-back tail.
func NewWriter(w io.Writer, r *Redactor) *Writer {
	return &Writer{r: r, w: w}
}

// Write redacts p (joined to the bytes held back from earlier writes) and
// writes what can no longer be part of a secret. It returns len(p) when the
// underlying write succeeds.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.r == nil || len(w.r.patterns) == 0 {
		return w.w.Write(p)
	}
	buf := p
	if len(w.pending) > 0 {
		buf = append(w.pending, p...)
	}
	spans := w.r.find(buf)
	// Any secret starting before cut ends within buf and has been found.
	cut := len(buf) - (w.r.maxLen - 1)
	if !w.r.newline {
		if nl := bytes.LastIndexByte(buf, '\n'); nl+1 > cut {
			cut = nl + 1
		}
	}
	cut = max(cut, 0)
	// A found secret straddling cut is emitted whole.
	var emit []span
	for _, s := range spans {
		if s.start >= cut {
			break
		}
		if s.end > cut {
			cut = s.end
		}
		emit = append(emit, s)
	}
	var out []byte
	if len(emit) == 0 {
		out = buf[:cut]
	} else {
		out = apply(buf[:cut], emit)
	}
	if len(out) > 0 {
		if _, err := w.w.Write(out); err != nil {
			return 0, err
		}
	}
	w.pending = append(w.pending[:0:0], buf[cut:]...)
	return len(p), nil
}

// Flush redacts and writes the held-back bytes.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) == 0 {
		return nil
	}
	out := w.r.Bytes(w.pending)
	w.pending = nil
	_, err := w.w.Write(out)
	return err
}

// Close flushes the Writer. It does not close the underlying writer.
func (w *Writer) Close() error { return w.Flush() }
