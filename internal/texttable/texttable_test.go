package texttable

import (
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	var b strings.Builder
	tb := New(&b, "RUN", "BENCHMARK", "CHANGE")
	tb.Row("7", "Checksum", "+30.0%")
	tb.Row("12", "WALSync/threads=10", "-1.5%")
	if err := tb.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "RUN  BENCHMARK           CHANGE\n" +
		"7    Checksum            +30.0%\n" +
		"12   WALSync/threads=10  -1.5%\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
