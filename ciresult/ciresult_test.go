package ciresult

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadArtifactRefuses checks the bounds post-artifact puts on a fork's
// artifact before anything is posted.
func TestReadArtifactRefuses(t *testing.T) {
	sha := strings.Repeat("ab", 20)
	answer := `{"Key":"gha-4","Summary":"1 worse","State":"failure","Commit":"` + sha + `","Renderings":{"markdown-gfm":{"Full":"### perfbot\n| a |"}}}`
	meta := `{"pr":4,"head_sha":"` + sha + `","key":"gha-4"}`
	write := func(t *testing.T, files map[string]string) string {
		dir := t.TempDir()
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	dir := write(t, map[string]string{MetaFile: meta, AnswerJSONFile: answer})
	m, msg, err := ReadArtifact(dir)
	if err != nil || m.PR != 4 || msg.Full("markdown-gfm") != "### perfbot\n| a |" || msg.State != "failure" {
		t.Fatalf("a good artifact: %+v %+v %v", m, msg, err)
	}
	for name, c := range map[string]struct {
		files map[string]string
		want  string
	}{
		"key of another pull request":  {map[string]string{MetaFile: strings.Replace(meta, `"gha-4"`, `"gha-5"`, 1), AnswerJSONFile: answer}, "want gha-4"},
		"key that is not the action's": {map[string]string{MetaFile: strings.Replace(meta, `"gha-4"`, `"cli-4"`, 1), AnswerJSONFile: answer}, "want gha-4"},
		"answer key differs":           {map[string]string{MetaFile: meta, AnswerJSONFile: strings.Replace(answer, `"gha-4"`, `"gha-4-x"`, 1)}, "is not meta.json's"},
		"short sha":                    {map[string]string{MetaFile: strings.Replace(meta, sha, "abab", 1), AnswerJSONFile: answer}, "40 hex digits"},
		"unknown state":                {map[string]string{MetaFile: meta, AnswerJSONFile: strings.Replace(answer, `"failure"`, `"queued"`, 1)}, "want success, failure or error"},
		"too large":                    {map[string]string{MetaFile: meta + strings.Repeat(" ", MaxMetaJSON), AnswerJSONFile: answer}, "more than the"},
		"no markdown":                  {map[string]string{MetaFile: meta, AnswerJSONFile: strings.Replace(answer, "markdown-gfm", "text", 1)}, "no markdown-gfm rendering"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := ReadArtifact(write(t, c.files))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	t.Run("symbolic link", func(t *testing.T) {
		d := write(t, map[string]string{MetaFile: meta})
		if err := os.Symlink("/etc/hostname", filepath.Join(d, AnswerJSONFile)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ReadArtifact(d); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("a link as answer.json: %v", err)
		}
	})
}

// TestKeyPR checks the answer keys a fork artifact may carry: the pull
// request's number, and a suffix of 1 to 64 safe characters.
func TestKeyPR(t *testing.T) {
	for key, want := range map[string]string{
		"gha-12": "12", "gha-12-wal": "12", "gha-7-a.b_c-d": "7", "gha-3-" + strings.Repeat("x", 64): "3",
	} {
		if got, ok := keyPR(key); !ok || got != want {
			t.Errorf("keyPR(%q) = %q, %v; want %q", key, got, ok, want)
		}
	}
	for _, key := range []string{"", "gha-", "gha-x", "gh-12", "gha-12-", "gha-12-a/b", "gha-12 ", "gha-12-" + strings.Repeat("x", 65), "xgha-12", "gha--1"} {
		if got, ok := keyPR(key); ok {
			t.Errorf("keyPR(%q) = %q, true; want refused", key, got)
		}
	}
	if !isSHA(strings.Repeat("a1", 20)) || isSHA(strings.Repeat("A1", 20)) || isSHA(strings.Repeat("a", 39)) || isSHA(strings.Repeat("g", 40)) {
		t.Error("isSHA accepts other than 40 lowercase hex digits, or refuses them")
	}
}
