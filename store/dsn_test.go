package store

import "testing"

func TestRedactDSN(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://perfbot:s3cr:et@db.example.org/perfbot": "postgres://perfbot:xxxxx@db.example.org/perfbot",
		"postgres://perfbot@db.example.org/perfbot":         "postgres://perfbot@db.example.org/perfbot",
		"perfbot.db": "perfbot.db",
	} {
		if got := RedactDSN(in); got != want {
			t.Errorf("RedactDSN(%q) = %q, want %q", in, got, want)
		}
	}
}
