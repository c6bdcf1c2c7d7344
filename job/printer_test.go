package job

import (
	"bytes"
	"strings"
	"testing"
)

// TestPrinterShowsNoRawEscape: a suite name and runner lines holding
// terminal escapes and a bidi override reach the terminal with those made
// visible; only the printer's own "\r\x1b[K" is sent raw.
func TestPrinterShowsNoRawEscape(t *testing.T) {
	const hostile = "x\x1b]8;;http://evil.test/\x07click\x1b]8;;\x07\u202eexe\x1b[2J"
	for _, tty := range []bool{true, false} {
		var b bytes.Buffer
		p := NewPrinter(&b, tty)
		p.Progress(Progress{Stage: "run", Suite: hostile, Round: 1, Rounds: 3})
		line := []byte("BenchmarkEvil" + hostile + "\t1\t100 ns/op\n")
		if tty {
			p.Write(line)
		} else {
			for i := range line { // a byte at a time: no character is split
				p.Write(line[i : i+1])
			}
		}
		p.Done()
		out := strings.ReplaceAll(b.String(), "\r\x1b[K", "")
		if strings.ContainsAny(out, "\x1b\x07\u202e") {
			t.Errorf("tty=%v: raw escape printed: %q", tty, out)
		}
		if !strings.Contains(out, `BenchmarkEvilx\x1b]8;;http://evil.test/\x07click\x1b]8;;\x07\u202eexe\x1b[2J`) {
			t.Errorf("tty=%v: runner line not shown with its escapes visible: %q", tty, out)
		}
	}
}
