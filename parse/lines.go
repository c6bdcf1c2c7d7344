package parse

import (
	"bufio"
	"bytes"
	"context"
	"io"
)

// maxLine is the longest line a text parser keeps. Longer lines (a binding
// dumping a map to stdout, say) are cut to this length and the rest is
// dropped, so a single huge line cannot exhaust memory.
const maxLine = 1 << 20

// lineReader reads an input line by line with bounded memory, counting
// lines for error messages and checking ctx as it goes.
type lineReader struct {
	r    *bufio.Reader
	n    int
	text string
	line []byte
	buf  []byte
	err  error
}

func newLineReader(r io.Reader) *lineReader {
	if br, ok := r.(*bufio.Reader); ok && br.Size() >= 64<<10 {
		return &lineReader{r: br}
	}
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next reads the following line, without its line ending ("\n" or "\r\n").
// It returns false at the end of the input or on an error (see Err).
func (l *lineReader) next(ctx context.Context) bool {
	if !l.nextBytes(ctx) {
		return false
	}
	l.text = string(l.line)
	return true
}

// nextBytes is next without making the line a string: Bytes holds it
// until the following call.
func (l *lineReader) nextBytes(ctx context.Context) bool {
	if l.err != nil {
		return false
	}
	if l.n&1023 == 0 {
		if err := ctx.Err(); err != nil {
			l.err = err
			return false
		}
	}
	chunk, err := l.r.ReadSlice('\n')
	line := chunk
	if err == bufio.ErrBufferFull {
		// A line longer than the buffer: gather it, up to maxLine.
		l.buf = append(l.buf[:0], chunk...)
		for err == bufio.ErrBufferFull {
			chunk, err = l.r.ReadSlice('\n')
			if room := maxLine - len(l.buf); room > 0 {
				l.buf = append(l.buf, chunk[:min(len(chunk), room)]...)
			}
		}
		line = l.buf
	}
	if err != nil && err != io.EOF {
		l.err = err
		return false
	}
	if err == io.EOF && len(line) == 0 {
		return false
	}
	l.n++
	line = bytes.TrimSuffix(line, []byte("\n"))
	l.line = bytes.TrimSuffix(line, []byte("\r"))
	return true
}

// Bytes is the line last read by nextBytes or next, valid until the
// following call.
func (l *lineReader) Bytes() []byte { return l.line }

// Line is the 1-based number of the line last read.
func (l *lineReader) Line() int { return l.n }

// Text is the line last read.
func (l *lineReader) Text() string { return l.text }

// Err is the read error that stopped next, if any (nil at a clean end).
func (l *lineReader) Err() error { return l.err }
