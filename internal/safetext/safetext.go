// Package safetext neutralises outside text (benchmark names, patch
// subjects, build logs) for the medium it is shown in, so that it cannot
// act there: no control character reaches a terminal, where ESC starts a
// colour, a cursor move or an OSC 8 hyperlink; no bidirectional control
// (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C) reorders what a
// reader of an answer, a page or a terminal sees.
//
// Answer replaces each such character with U+FFFD, which every markup shows
// as itself; Terminal shows each as an escape (\x1b, \u202e), so that an
// operator sees what was there.
package safetext

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Replacement is what Answer puts in place of a control character.
const Replacement = "\uFFFD"

// IsBidi reports whether r is a bidirectional formatting control: an
// embedding, override or isolate (U+202A-U+202E, U+2066-U+2069) or a
// directional mark (U+200E, U+200F, U+061C).
func IsBidi(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
}

// IsControl reports whether r may not pass from the outside into an
// answer, a page or a terminal: a C0 control other than tab, line feed
// and carriage return, DEL, a C1 control, or a bidirectional control.
func IsControl(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		return true
	}
	return IsBidi(r)
}

// suspect reports whether s may hold a control: a byte below 0x20 other
// than tab, line feed and carriage return, DEL, or the lead byte of a C1
// control (0xC2), of U+061C (0xD8) or of U+200E-U+2069 (0xE2). Most text
// has none, and is returned as it is.
func suspect(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r', c == 0x7f, c == 0xC2, c == 0xD8, c == 0xE2:
			return true
		}
	}
	return false
}

// Answer returns s with every control (IsControl) replaced by U+FFFD:
// for answers on every venue, mails and pages, whose markup shows U+FFFD
// as itself. Invalid UTF-8 is left as it is (each medium's escaping or
// encoding deals with it).
func Answer(s string) string {
	if !suspect(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError && IsControl(r) {
			b.WriteString(Replacement)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Terminal returns s fit for a terminal: every control (IsControl) and
// carriage return is shown as an escape, \x1b or \u202e, as is each byte
// of invalid UTF-8 (\x9b, the 8-bit CSI); tabs and line feeds stay.
func Terminal(s string) string {
	if !suspect(s) && !strings.ContainsRune(s, '\r') && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && (IsControl(r) || r == '\r'):
			fmt.Fprintf(&b, `\x%02x`, r)
		case IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Writer passes what is written to it through a neutraliser (Answer or
// Terminal) to another writer, holding back a character split between
// two writes until it is whole.
type Writer struct {
	w       io.Writer
	fn      func(string) string
	partial []byte
}

// NewWriter returns a Writer that writes fn(text) to w.
func NewWriter(w io.Writer, fn func(string) string) *Writer { return &Writer{w: w, fn: fn} }

// NewTerminal returns a Writer that writes Terminal(text) to w.
func NewTerminal(w io.Writer) *Writer { return NewWriter(w, Terminal) }

// Write neutralises p and writes it; it reports len(p) when all went out.
func (w *Writer) Write(p []byte) (int, error) {
	buf := append(w.partial, p...)
	cut := len(buf) - incomplete(buf)
	if _, err := io.WriteString(w.w, w.fn(string(buf[:cut]))); err != nil {
		return 0, err
	}
	w.partial = append(w.partial[:0], buf[cut:]...)
	return len(p), nil
}

// Flush writes what is held back, neutralised as it stands.
func (w *Writer) Flush() error {
	if len(w.partial) == 0 {
		return nil
	}
	_, err := io.WriteString(w.w, w.fn(string(w.partial)))
	w.partial = w.partial[:0]
	return err
}

// incomplete is the length of the start of a UTF-8 sequence that b ends
// with, 0 when b ends with a whole character (or a byte that starts none).
func incomplete(b []byte) int {
	for n := 1; n <= 3 && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < 0x80 {
			return 0
		}
		if c >= 0xC0 { // a lead byte: is its sequence longer than n?
			need := 2
			if c >= 0xE0 {
				need = 3
			}
			if c >= 0xF0 {
				need = 4
			}
			if need > n {
				return n
			}
			return 0
		}
	}
	return 0
}
