package safetext

import (
	"bytes"
	"strings"
	"testing"
)

func TestAnswer(t *testing.T) {
	for in, want := range map[string]string{
		"BenchmarkAppend":            "BenchmarkAppend",
		"a\u202eb":                   "a\uFFFDb",
		"\u2066x\u2069 \u200e\u200f": "\uFFFDx\uFFFD \uFFFD\uFFFD",
		"\u061c":                     "\uFFFD",
		"\x1b[31mred\x1b[0m":         "\uFFFD[31mred\uFFFD[0m",
		"c1\u009b31m":                "c1\uFFFD31m",
		"tab\tline\nend\r\n":         "tab\tline\nend\r\n",
		"ünïcode — ok →":             "ünïcode — ok →",
	} {
		if got := Answer(in); got != want {
			t.Errorf("Answer(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTerminal(t *testing.T) {
	for in, want := range map[string]string{
		"BenchmarkAppend": "BenchmarkAppend",
		"\x1b[31mred":     `\x1b[31mred`,
		"\x1b]8;;http://evil.test\x07link\x1b]8;;\x07": `\x1b]8;;http://evil.test\x07link\x1b]8;;\x07`,
		"a\u202eb":    `a\u202eb`,
		"csi\x9b2J":   `csi\x9b2J`,
		"over\rwrite": `over\x0dwrite`,
		"tab\tline\n": "tab\tline\n",
		"é":           "é",
	} {
		if got := Terminal(in); got != want {
			t.Errorf("Terminal(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWriterSplitsNoCharacter: a bidi control written a byte at a time
// is still caught.
func TestWriterSplitsNoCharacter(t *testing.T) {
	var b bytes.Buffer
	w := NewTerminal(&b)
	for _, c := range []byte("x\u202ey é\x1b") {
		if _, err := w.Write([]byte{c}); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	if b.String() != `x\u202ey é\x1b` {
		t.Errorf("written a byte at a time: %q", b.String())
	}
	if strings.ContainsRune(b.String(), 0x202e) {
		t.Error("raw bidi control passed")
	}
}
