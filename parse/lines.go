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
	if l.err != nil {
		return false
	}
	if l.n&1023 == 0 {
		if err := ctx.Err(); err != nil {
			l.err = err
			return false
		}
	}
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(l.buf) < maxLine {
			room := maxLine - len(l.buf)
			if len(chunk) > room {
				l.buf = append(l.buf, chunk[:room]...)
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			l.err = err
			return false
		}
		if err == io.EOF && len(l.buf) == 0 {
			return false
		}
		break
	}
	l.n++
	b := bytes.TrimSuffix(l.buf, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	l.text = string(b)
	return true
}

// Line is the 1-based number of the line last read.
func (l *lineReader) Line() int { return l.n }

// Text is the line last read.
func (l *lineReader) Text() string { return l.text }

// Err is the read error that stopped next, if any (nil at a clean end).
func (l *lineReader) Err() error { return l.err }
