package parse

import (
	"bufio"
	"context"
	"io"
)

// objectScanner cuts a stream of JSON text into the objects that are its
// records: the elements of a top-level array, a top-level object, or the
// objects of NDJSON. It keeps only one record in memory at a time, tracks
// strings and escapes, and tolerates fragments: closing brackets that close
// nothing (a file cut out of the middle of a larger document) are skipped,
// and an object still open at the end of the input is reported as
// truncated with the line it began on.
type objectScanner struct {
	r      *bufio.Reader
	line   int
	buf    []byte
	start  int // line the current record began on
	stack  []byte
	inStr  bool
	escape bool
	err    error
	trunc  bool
	// prefix, when set, is removed from the start of every line before
	// scanning (CTest's "48: ").
	stripPrefix func([]byte) []byte
}

func newObjectScanner(r io.Reader) *objectScanner {
	return &objectScanner{r: bufio.NewReaderSize(r, 64<<10), line: 1}
}

// next returns the next complete record's bytes and the line it began on.
// At the end of the input it returns ok=false; truncated reports whether a
// record was left open.
func (s *objectScanner) next(ctx context.Context) (rec []byte, line int, ok bool) {
	atLineStart := true
	for {
		if s.err != nil {
			return nil, 0, false
		}
		if atLineStart && s.stripPrefix != nil {
			peek, _ := s.r.Peek(16)
			if cut := s.stripPrefix(peek); len(cut) < len(peek) {
				s.r.Discard(len(peek) - len(cut))
			}
		}
		c, err := s.r.ReadByte()
		if err != nil {
			if err != io.EOF {
				s.err = err
			} else {
				s.err = io.EOF
				if len(s.stack) > 0 && s.recording() {
					s.trunc = true
				}
			}
			return nil, 0, false
		}
		atLineStart = c == '\n'
		if c == '\n' {
			s.line++
			if s.line&1023 == 0 {
				if err := ctx.Err(); err != nil {
					s.err = err
					return nil, 0, false
				}
			}
		}
		depth := len(s.stack)
		if s.recording() {
			s.buf = append(s.buf, c)
		}
		if s.inStr {
			switch {
			case s.escape:
				s.escape = false
			case c == '\\':
				s.escape = true
			case c == '"':
				s.inStr = false
			}
			continue
		}
		switch c {
		case '"':
			s.inStr = true
		case '{':
			if depth == 0 || depth == 1 && s.stack[0] == '[' {
				s.buf = append(s.buf[:0], c)
				s.start = s.line
			}
			s.stack = append(s.stack, c)
		case '[':
			s.stack = append(s.stack, c)
		case '}', ']':
			if depth == 0 {
				continue // closes something that began before the fragment
			}
			rd := s.recordDepth()
			s.stack = s.stack[:depth-1]
			if c == '}' && rd == depth {
				rec := s.buf
				s.buf = nil
				return rec, s.start, true
			}
		}
	}
}

// recording reports whether the scanner is inside a record.
func (s *objectScanner) recording() bool {
	return s.recordDepth() > 0 && len(s.stack) >= s.recordDepth()
}

// recordDepth is the stack depth of a record object: 1 for a top-level
// object, 2 inside a top-level array.
func (s *objectScanner) recordDepth() int {
	if len(s.stack) == 0 {
		return 0
	}
	if s.stack[0] == '[' {
		if len(s.stack) >= 2 && s.stack[1] == '{' {
			return 2
		}
		return 0
	}
	return 1
}

// Err returns the read error, if any, other than the end of the input.
func (s *objectScanner) Err() error {
	if s.err == io.EOF {
		return nil
	}
	return s.err
}
