package venue

import (
	"strings"
	"testing"
)

func TestNotPatch(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"unified diff", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", ""},
		{"git rename", "diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n", ""},
		{"login page", "\n<!DOCTYPE html>\n<html><title>Log in - JIRA</title>", "HTML"},
		{"empty", " \n", "empty"},
		{"headers only", "--- a/x\n+++ b/x\n", "hunk"},
		{"prose", "Please see the attached benchmark results.\n", "file header"},
	} {
		got := NotPatch(c.text)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: NotPatch = %q, want %q", c.name, got, c.want)
		}
	}
}
