package parse

import (
	"bufio"
	"context"
	"io"
)

// objectScanner cuts a stream of JSON text into the objects that are its
// records, keeping one record in memory at a time. A record is an object
// whose position matches one of the scanner's patterns, written as the
// stack of open brackets around and including it: "[{" for the elements of
// a top-level array (JMH), "{[{" for the objects of an array inside a
// top-level object (gbench's "benchmarks", hyperfine's "results"), "{" for
// top-level objects (NDJSON, or the records of a fragment).
//
// It tracks strings and escapes, and tolerates fragments: closing brackets
// that close nothing (text cut out of the middle of a larger document) are
// skipped, and a record still open at the end of the input is reported as
// truncated with the line it began on.
type objectScanner struct {
	file     string // the input's name, for errors
	r        *bufio.Reader
	patterns []string
	chunk    []byte // unread rest of the last ReadSlice
	line     int
	buf      []byte
	start    int // line the current record began on
	rec      int // stack depth of the current record, 0 when none
	stack    []byte
	inStr    bool
	escape   bool
	err      error
	trunc    bool
}

// Limits that keep memory bounded on hostile input.
const (
	maxJSONDepth  = 1 << 12
	maxRecordSize = 64 << 20
)

func newObjectScanner(r io.Reader, file string, patterns ...string) *objectScanner {
	if len(patterns) == 0 {
		patterns = []string{"{"}
	}
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 64<<10 {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &objectScanner{file: file, r: br, line: 1, patterns: patterns}
}

// firstByte returns the first byte that is not white space, without
// consuming it, or 0 when there is none in the first 64 KiB.
func (s *objectScanner) firstByte() byte {
	b, _ := s.r.Peek(s.r.Size())
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
		default:
			return c
		}
	}
	return 0
}

// matches reports whether the open brackets form a record's position.
func (s *objectScanner) matches() bool {
	for _, p := range s.patterns {
		if string(s.stack) == p {
			return true
		}
	}
	return false
}

// next returns the next complete record's bytes and the line it began on,
// or ok=false at the end of the input (see Err and trunc).
func (s *objectScanner) next(ctx context.Context) (rec []byte, line int, ok bool) {
	for {
		for i := 0; i < len(s.chunk); i++ {
			c := s.chunk[i]
			if c == '\n' {
				s.line++
			}
			if s.rec > 0 {
				if len(s.buf) >= maxRecordSize {
					s.err = syntaxf(s.file, s.start, "JSON record longer than %d MiB", maxRecordSize>>20)
					s.chunk = nil
					return nil, 0, false
				}
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
			case '{', '[':
				if len(s.stack) >= maxJSONDepth {
					s.err = syntaxf(s.file, s.line, "JSON nested deeper than %d levels", maxJSONDepth)
					s.chunk = nil
					return nil, 0, false
				}
				s.stack = append(s.stack, c)
				if c == '{' && s.rec == 0 && s.matches() {
					s.rec = len(s.stack)
					s.start = s.line
					s.buf = append(s.buf[:0], c)
				}
			case '}', ']':
				if len(s.stack) == 0 {
					continue // closes something that began before a fragment
				}
				closing := len(s.stack)
				s.stack = s.stack[:closing-1]
				if c == '}' && s.rec == closing {
					s.rec = 0
					out := s.buf
					s.buf = nil
					s.chunk = s.chunk[i+1:]
					return out, s.start, true
				}
			}
		}
		s.chunk = nil
		if s.err != nil {
			if s.err == io.EOF && s.rec > 0 {
				s.trunc = true
			}
			return nil, 0, false
		}
		if s.line&1023 == 0 {
			if err := ctx.Err(); err != nil {
				s.err = err
				return nil, 0, false
			}
		}
		chunk, err := s.r.ReadSlice('\n')
		s.chunk = chunk
		switch {
		case err == nil, err == bufio.ErrBufferFull:
		case err == io.EOF:
			s.err = io.EOF
		default:
			s.err = err
			s.chunk = nil
		}
	}
}

// Err returns the read error, if any, other than the end of the input.
func (s *objectScanner) Err() error {
	if s.err == io.EOF {
		return nil
	}
	return s.err
}
