package config

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Error is one mistake in a config file, at its place.
type Error struct {
	File string
	// Line and Col are 1-based; 0 when the mistake has no single place
	// in the file (a setting that is missing).
	Line, Col int
	// Path names the setting, such as "venues.github.token_env" or
	// "schedules[1].tz"; empty for the file as a whole.
	Path string
	// Msg says what was expected.
	Msg string
	// typed marks a value the decoder could not read: checks of what
	// depends on it would only repeat the mistake.
	typed bool
}

// Error formats the mistake as FILE:LINE:COL: PATH: MSG.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	switch {
	case e.Line > 0 && e.Col > 0:
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	case e.Line > 0:
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors are every mistake found in one config file, in file order.
type Errors []*Error

// Error lists the mistakes one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.As find each mistake.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// sorted orders the mistakes by place, dropping repeats and the checks
// of settings whose value (or a part of it) could not be read.
func (es Errors) sorted() Errors {
	var typed []string
	for _, e := range es {
		if e.typed {
			typed = append(typed, e.Path)
		}
	}
	var out Errors
	seen := map[string]bool{}
	for _, e := range es {
		if !e.typed && coveredBy(e.Path, typed) {
			continue
		}
		if k := e.Error(); !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b *Error) int {
		switch {
		case a.Line == 0 && b.Line == 0:
			return 0
		case a.Line == 0:
			return 1
		case b.Line == 0:
			return -1
		}
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	return out
}

// coveredBy reports whether path is a typed mistake's path or contains
// one ("suites.x" contains "suites.x.matrix").
func coveredBy(path string, typed []string) bool {
	for _, t := range typed {
		if t == path || strings.HasPrefix(t, path+".") || strings.HasPrefix(t, path+"[") {
			return true
		}
	}
	return false
}
