package intake

import (
	"strings"
	"testing"
)

func TestIsCommitID(t *testing.T) {
	for s, want := range map[string]bool{
		strings.Repeat("a1", 20):       true,
		strings.Repeat("0f", 32):       true,
		strings.Repeat("A1", 20):       false, // upper case
		strings.Repeat("a", 39):        false,
		strings.Repeat("a", 41):        false,
		strings.Repeat("g", 40):        false,
		"":                             false,
		strings.Repeat("a", 39) + "\n": false,
		strings.Repeat("é", 20):        false, // 40 bytes, not hex
	} {
		if got := IsCommitID(s); got != want {
			t.Errorf("IsCommitID(%q) = %v, want %v", s, got, want)
		}
	}
}
