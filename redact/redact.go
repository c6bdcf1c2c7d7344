// Package redact removes secret values (API tokens, passwords) from text
// before it is logged, stored or posted.
//
// A Redactor is built once from the secret values the posting side holds. It
// replaces every occurrence of a secret, of its base64 encodings (standard
// and URL alphabets, at each of the three byte alignments, so a secret inside
// a longer encoded string such as an HTTP Basic credential is found too) and
// of its URL-encoded forms with "[REDACTED]".
package redact

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"
)

// Mask is what every occurrence of a secret is replaced with.
const Mask = "[REDACTED]"

// MinLen is the shortest secret that is redacted. Shorter values would match
// ordinary text everywhere; they are ignored with a warning.
const MinLen = 6

// Redactor replaces secret values in text. The zero value and a nil
// *Redactor redact nothing. A Redactor is safe for concurrent use.
type Redactor struct {
	patterns [][]byte // longest first, distinct
	maxLen   int
	// newline is true when some pattern contains '\n'; otherwise a match
	// never crosses a line end, which lets Writer flush whole lines at once.
	newline  bool
	warnings []string
}

// New returns a Redactor for the given secret values. Empty values are
// skipped silently; values shorter than MinLen are skipped with a warning
// (see Warnings) that names the value's position, never the value.
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	for i, s := range secrets {
		switch {
		case s == "":
			continue
		case len(s) < MinLen:
			r.warnings = append(r.warnings, fmt.Sprintf(
				"redact: secret #%d is %d characters long, shorter than %d: it is not redacted", i+1, len(s), MinLen))
			continue
		}
		for _, p := range forms(s) {
			if len(p) < MinLen || seen[p] {
				continue
			}
			seen[p] = true
			r.patterns = append(r.patterns, []byte(p))
		}
	}
	sort.SliceStable(r.patterns, func(i, j int) bool { return len(r.patterns[i]) > len(r.patterns[j]) })
	for _, p := range r.patterns {
		r.maxLen = max(r.maxLen, len(p))
		if bytes.IndexByte(p, '\n') >= 0 {
			r.newline = true
		}
	}
	return r
}

// Source names where one secret is read from.
type Source struct {
	// Env is an environment variable holding the secret.
	Env string
	// File is a file holding the secret; surrounding white space is
	// trimmed.
	File string
}

// FromSources reads the secrets named by sources, looking environment
// variables up with lookupEnv (os.LookupEnv in production), and returns a
// Redactor for them. Unset variables are skipped; an unreadable file is an
// error. Warnings name the source of each secret too short to redact.
func FromSources(lookupEnv func(string) (string, bool), sources []Source) (*Redactor, error) {
	var values, names []string
	for _, src := range sources {
		switch {
		case src.Env != "":
			if v, ok := lookupEnv(src.Env); ok {
				values, names = append(values, v), append(names, "environment variable "+src.Env)
			}
		case src.File != "":
			b, err := os.ReadFile(src.File)
			if err != nil {
				return nil, fmt.Errorf("redact: read secret: %w", err)
			}
			values, names = append(values, strings.TrimSpace(string(b))), append(names, "file "+src.File)
		}
	}
	r := New(values...)
	r.warnings = r.warnings[:0]
	for i, v := range values {
		if v != "" && len(v) < MinLen {
			r.warnings = append(r.warnings, fmt.Sprintf(
				"redact: the secret in %s is %d characters long, shorter than %d: it is not redacted", names[i], len(v), MinLen))
		}
	}
	return r, nil
}

// Warnings lists the secrets that are not redacted and why.
func (r *Redactor) Warnings() []string {
	if r == nil {
		return nil
	}
	return append([]string(nil), r.warnings...)
}

// Len is the number of patterns searched for (each secret and its encoded
// forms).
func (r *Redactor) Len() int {
	if r == nil {
		return 0
	}
	return len(r.patterns)
}

// forms returns s and the encoded forms under which it may appear in output.
func forms(s string) []string {
	out := []string{s, url.QueryEscape(s), url.PathEscape(s)}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for shift := 0; shift < 3; shift++ {
			if f := base64Core(enc, s, shift); f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}

// base64Core returns the characters of the base64 encoding of s that depend
// on s alone when s starts shift bytes into the encoded data: the part that
// appears whatever bytes surround s.
func base64Core(enc *base64.Encoding, s string, shift int) string {
	data := make([]byte, shift+len(s))
	copy(data[shift:], s)
	full := enc.EncodeToString(data)
	// Character i covers bits [6i, 6i+6) of data; the secret occupies bits
	// [8*shift, 8*len(data)).
	start := (8*shift + 5) / 6
	end := (8 * len(data)) / 6
	if end-start < MinLen {
		return ""
	}
	return full[start:end]
}

// String returns s with every secret replaced by Mask.
func (r *Redactor) String(s string) string {
	if r == nil || len(r.patterns) == 0 || len(s) == 0 {
		return s
	}
	spans := r.find([]byte(s))
	if len(spans) == 0 {
		return s
	}
	return string(apply([]byte(s), spans))
}

// Bytes returns b with every secret replaced by Mask. When b holds no secret
// it is returned as is; otherwise the result is a new slice.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil || len(r.patterns) == 0 || len(b) == 0 {
		return b
	}
	spans := r.find(b)
	if len(spans) == 0 {
		return b
	}
	return apply(b, spans)
}

// Contains reports whether s holds a secret in any of its forms.
func (r *Redactor) Contains(s string) bool {
	if r == nil {
		return false
	}
	for _, p := range r.patterns {
		if strings.Contains(s, string(p)) {
			return true
		}
	}
	return false
}

// span is a half-open byte range [start, end) to mask.
type span struct{ start, end int }

// find returns the sorted, merged ranges of b that hold a pattern.
func (r *Redactor) find(b []byte) []span {
	var spans []span
	for _, p := range r.patterns {
		off := 0
		for {
			i := bytes.Index(b[off:], p)
			if i < 0 {
				break
			}
			spans = append(spans, span{off + i, off + i + len(p)})
			off += i + 1
		}
	}
	if len(spans) < 2 {
		return spans
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	merged := spans[:1]
	for _, s := range spans[1:] {
		last := &merged[len(merged)-1]
		if s.start < last.end {
			last.end = max(last.end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// apply copies b with each span replaced by Mask.
func apply(b []byte, spans []span) []byte {
	out := make([]byte, 0, len(b)+len(spans)*len(Mask))
	prev := 0
	for _, s := range spans {
		out = append(out, b[prev:s.start]...)
		out = append(out, Mask...)
		prev = s.end
	}
	return append(out, b[prev:]...)
}
