package parse

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/perfbot/perfbot/bench"
)

type warnKey struct{}

// WithWarnings returns a context under which parsers report problems they
// recovered from (a row skipped because its value was NaN, say) by calling
// fn, instead of staying silent. Each warning is a *SyntaxError naming the
// file and line.
func WithWarnings(ctx context.Context, fn func(*SyntaxError)) context.Context {
	return context.WithValue(ctx, warnKey{}, fn)
}

// warnf reports a recovered problem to the function installed by
// WithWarnings, if any.
func warnf(ctx context.Context, file string, line int, format string, args ...any) {
	if fn, ok := ctx.Value(warnKey{}).(func(*SyntaxError)); ok && fn != nil {
		fn(&SyntaxError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
}

// syntaxf builds a *SyntaxError.
func syntaxf(file string, line int, format string, args ...any) *SyntaxError {
	return &SyntaxError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// checked wraps emit so that a result that fails bench.Result.Validate
// (a row with an empty name or unit in malformed input) is skipped with a
// warning instead of reaching the caller.
func checked(ctx context.Context, file string, emit func(*bench.Result) error) func(*bench.Result) error {
	return func(r *bench.Result) error {
		if err := r.Validate(); err != nil {
			line := 0
			if i := strings.LastIndexByte(r.Source, ':'); i >= 0 {
				line, _ = strconv.Atoi(r.Source[i+1:])
			}
			warnf(ctx, file, line, "%v; skipped", err)
			return nil
		}
		return emit(r)
	}
}

// source formats a result's Source, "file:line".
func source(file string, line int) string {
	var digits [20]byte
	// One allocation: the converted digits are only read by the concatenation.
	return file + ":" + string(strconv.AppendInt(digits[:0], int64(line), 10))
}
