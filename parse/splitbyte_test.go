package parse

import (
	"slices"
	"strings"
	"testing"
)

func TestFirstFieldsAgreesWithSplit(t *testing.T) {
	for _, s := range []string{"", ",", "a", "a,b", ",a,", "1,,ns,cycles,100.00,,", "1,,ns,cycles,100.00,,x,y", "x;y;z"} {
		for _, sep := range []byte{',', ';', ' '} {
			for _, n := range []int{1, 5, 6, 20} {
				got := firstFields(nil, s, sep, n)
				want := strings.Split(s, string(sep))
				want = want[:min(n, len(want))]
				if !slices.Equal(got, want) {
					t.Errorf("firstFields(%q, %q, %d) = %q, want %q", s, sep, n, got, want)
				}
			}
		}
	}
}
