package runner

import "testing"

func TestPatchSubject(t *testing.T) {
	for _, tt := range []struct{ name, patch, want string }{
		{"format-patch", "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\nFrom: A U Thor <a@example.org>\nDate: Mon, 30 Nov 2026 10:00:00 +0000\nSubject: [PATCH] wal: buffer appends\n\nbody\n---\ndiff --git a/x b/x\n", "wal: buffer appends"},
		{"folded and tagged", "From: a@example.org\nSubject: [RFC][PATCH v2 1/3] store: replace the scan of every task\n with an index on the job key\n\nbody\n", "store: replace the scan of every task with an index on the job key"},
		{"encoded words", "From: a@example.org\nSubject: [PATCH] =?UTF-8?q?caf=C3=A9:_faster_?=\n =?UTF-8?q?r=C3=A9sum=C3=A9?=\n\nbody\n", "café: faster résumé"},
		{"latin-1", "From: a@example.org\nSubject: =?ISO-8859-1?Q?Andr=E9's_patch?=\n\nbody\n", "André's patch"},
		{"plain diff", "diff --git a/x b/x\n--- a/x\n+++ b/x\n", ""},
	} {
		if got := patchSubject([]byte(tt.patch)); got != tt.want {
			t.Errorf("%s: subject %q, want %q", tt.name, got, tt.want)
		}
	}
}
