package parse

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitByteAgreesWithSplit(t *testing.T) {
	for _, s := range []string{"", ",", "a", "a,b", ",a,", "1,,ns,cycles,100.00,,", "x;y;z"} {
		for _, sep := range []byte{',', ';', ' '} {
			got := splitByte(nil, s, sep)
			want := strings.Split(s, string(sep))
			if !slices.Equal(got, want) {
				t.Errorf("splitByte(%q, %q) = %q, want %q", s, sep, got, want)
			}
		}
	}
}
