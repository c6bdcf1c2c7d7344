// Package pkgfile names files after Go packages without collisions.
//
// A patch chooses its packages' import paths: two paths must never share a
// file name, as "a/b" and "a_b" did when every unsafe byte became '_' (a
// test-only package a_b then replaced the test binary of a/b).
package pkgfile

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxName is the longest name Name returns, well under a file name's 255
// bytes so that prefixes and suffixes (flame-SUITE-...-VARIANT.svg) fit.
const maxName = 100

// Name is importPath as one file name component, injective: letters,
// digits and '.' (but not a leading one) are kept, and every other byte is
// written "_XX" with XX its two lowercase hexadecimal digits, so that
// "a/b" is "a_2fb" and "a_b" is "a_5fb". The result has no '-', so it
// stays one field between '-' separators. A name longer than maxName
// bytes is cut and ends in "+" and a hash of the whole path ('+' appears
// in no escaped name).
func Name(importPath string) string {
	var b strings.Builder
	for i := 0; i < len(importPath); i++ {
		c := importPath[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' && i > 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('_')
		b.WriteString(hex.EncodeToString([]byte{c}))
	}
	s := b.String()
	if len(s) <= maxName {
		return s
	}
	sum := sha256.Sum256([]byte(importPath))
	suffix := "+" + hex.EncodeToString(sum[:12])
	cut := maxName - len(suffix)
	// Do not cut an escape in two.
	if i := strings.LastIndexByte(s[:cut], '_'); i >= cut-2 {
		cut = i
	}
	return s[:cut] + suffix
}
