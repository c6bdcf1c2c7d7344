package pkgfile

import (
	"encoding/hex"
	"strings"
	"testing"
)

// unescape reverses Name for names that were not cut.
func unescape(t *testing.T, s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '_' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			t.Fatalf("%q: escape cut short", s)
		}
		c, err := hex.DecodeString(s[i+1 : i+3])
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		b.Write(c)
		i += 2
	}
	return b.String()
}

func TestNameTellsPackagesApart(t *testing.T) {
	paths := []string{
		"example.com/rt/a/b", "example.com/rt/a_b", "example.com/rt/a-b", "example.com/rt/a.b",
		"example.com/rt/a__b", "example.com/rt/a_5fb", "example.com/rt/A/b", ".", "..", "_/tmp/x", "a/b/c", "a/b_c", "a_b/c",
		"example.com/ünï/cödé", "x~y", "x+y",
	}
	seen := map[string]string{}
	for _, p := range paths {
		n := Name(p)
		if other, dup := seen[n]; dup {
			t.Errorf("Name(%q) = Name(%q) = %q", p, other, n)
		}
		seen[n] = p
		if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/-\x00") || strings.HasPrefix(n, ".") {
			t.Errorf("Name(%q) = %q, not a safe single file name field", p, n)
		}
		if back := unescape(t, n); back != p {
			t.Errorf("Name(%q) = %q reads back as %q", p, n, back)
		}
	}
	if got := Name("example.com/rt/a/b"); got != "example.com_2frt_2fa_2fb" {
		t.Errorf("Name(example.com/rt/a/b) = %q", got)
	}
}

func TestNameLongPaths(t *testing.T) {
	long := strings.Repeat("very/long/path/", 20)
	a, b := Name(long+"x"), Name(long+"y")
	if a == b {
		t.Errorf("two long paths share the name %q", a)
	}
	for _, n := range []string{a, b} {
		if len(n) > maxName || !strings.Contains(n, "+") {
			t.Errorf("long name %q: %d bytes, want at most %d ending in + and a hash", n, len(n), maxName)
		}
	}
	// A cut never splits an escape.
	for i := 0; i < 5; i++ {
		n := Name(strings.Repeat("a", 80+i) + strings.Repeat("/", 20))
		head, _, _ := strings.Cut(n, "+")
		unescape(t, head)
	}
}
