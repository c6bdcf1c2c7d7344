package gitpatch

import (
	"errors"
	"strings"
	"testing"
)

func TestBaseCommit(t *testing.T) {
	const a, b = "63c6e1e4308746250d145794f1c6b9d41d7886a1", "0123456789abcdef0123456789abcdef01234567"
	head := "From 2f0d5600c83b16a7caeb4285129e00f6ed4d5d3c Mon Sep 17 00:00:00 2001\nFrom: Dev <dev@example.org>\nSubject: [PATCH] x\n\n"
	diff := "---\n a | 1 +\n\ndiff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1,2 @@\n a\n+b\n"
	for _, c := range []struct {
		name, text, want, err string
	}{
		{"none", head + "msg\n" + diff + "-- \n2.47.1\n", "", ""},
		{"after the diff", head + "msg\n" + diff + "\nbase-commit: " + a + "\n-- \n2.47.1\n", a, ""},
		{"CRLF", strings.ReplaceAll(head+diff+"\nbase-commit: "+a+"\n-- \n", "\n", "\r\n"), a, ""},
		{"the last one wins over one in the message", head + "base-commit: " + b + "\n" + diff + "\nbase-commit: " + a + "\n-- \n", a, ""},
		{"only the first message counts", head + diff + "-- \n2.47.1\n\n" + head + diff + "\nbase-commit: " + a + "\n-- \n", "", ""},
		{"the mbox the mail intake writes", "From perfbot Mon Sep 17 00:00:00 2001\n" + head[strings.Index(head, "\n")+1:] + diff + "\nbase-commit: " + a + "\n-- \n\nFrom perfbot Mon Sep 17 00:00:00 2001\n" + head + diff + "\nbase-commit: " + b + "\n", a, ""},
		{"after a line of 2 MiB", head + diff + "+" + strings.Repeat("x", 2<<20) + "\n\nbase-commit: " + a + "\n", a, ""},
		{"a diff's added line is not one", head + diff + "+base-commit: " + a + "\n", "", ""},
		{"abbreviated", head + diff + "\nbase-commit: 63c6e1e\n", "", `change.patch:15: base-commit "63c6e1e" is not a commit hash`},
		{"an option", head + diff + "\nbase-commit: --upload-pack=touch /tmp/x\n", "", `base-commit "--upload-pack=touch /tmp/x" is not a commit hash`},
		{"upper case", head + diff + "\nbase-commit: " + strings.ToUpper(a) + "\n", "", "is not a commit hash"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := BaseCommit([]byte(c.text), "change.patch")
			if c.err != "" {
				var be *BaseCommitError
				if !errors.As(err, &be) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want a BaseCommitError with %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("BaseCommit = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}
