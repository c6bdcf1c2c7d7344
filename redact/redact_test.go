package redact

import (
	"bytes"
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
)

const token = "ghp_R3alLyS3cretT0ken+/=abc"

func TestString(t *testing.T) {
	r := New(token, "s3cr3t-password")
	basic := base64.StdEncoding.EncodeToString([]byte("perfbot:" + token))
	tests := []struct {
		name, in, want string
	}{
		{"none", "BenchmarkFoo 100 5 ns/op", "BenchmarkFoo 100 5 ns/op"},
		{"plain", "token=" + token + "\n", "token=" + Mask + "\n"},
		{"twice", token + token, Mask + Mask},
		{"two secrets", token + " and s3cr3t-password.", Mask + " and " + Mask + "."},
		{"base64", "X " + base64.StdEncoding.EncodeToString([]byte(token)) + " Y", "X " + Mask + " Y"},
		{"base64 url", base64.URLEncoding.EncodeToString([]byte(token)), Mask},
		{"query escaped", "?t=" + url.QueryEscape(token), "?t=" + Mask},
		{"path escaped", "/x/" + url.PathEscape(token), "/x/" + Mask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := string(r.Bytes([]byte(tt.in))); got != tt.want {
				t.Errorf("Bytes(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	// Inside a longer base64 string (an HTTP Basic credential) the secret's
	// alignment differs; it must still go.
	if got := r.String("Authorization: Basic " + basic); strings.Contains(got, basic[12:30]) || !strings.Contains(got, Mask) {
		t.Errorf("basic credential not redacted: %q", got)
	}
}

func TestShortSecretsWarn(t *testing.T) {
	r := New("", "abc", token)
	if w := r.Warnings(); len(w) != 1 || !strings.Contains(w[0], "#2") || strings.Contains(w[0], "abc") {
		t.Errorf("warnings = %q, want one naming secret #2 without its value", w)
	}
	if got := r.String("abc abc"); got != "abc abc" {
		t.Errorf("short secret redacted: %q", got)
	}
}

func TestNil(t *testing.T) {
	var r *Redactor
	if r.String("x") != "x" || string(r.Bytes([]byte("y"))) != "y" || r.Contains("x") || r.Warnings() != nil {
		t.Error("nil Redactor must redact nothing")
	}
	var buf bytes.Buffer
	w := NewWriter(&buf, nil)
	w.Write([]byte("abc"))
	w.Close()
	if buf.String() != "abc" {
		t.Errorf("nil Writer wrote %q", buf.String())
	}
}

func TestFromSources(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/token"
	if err := writeFile(file, "  file-secret-value\n"); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GITHUB_TOKEN": token, "SHORT": "ab"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	r, err := FromSources(lookup, []Source{{Env: "GITHUB_TOKEN"}, {Env: "UNSET"}, {Env: "SHORT"}, {File: file}})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.String(token + " file-secret-value"); got != Mask+" "+Mask {
		t.Errorf("got %q", got)
	}
	if w := r.Warnings(); len(w) != 1 || !strings.Contains(w[0], "SHORT") {
		t.Errorf("warnings = %q", w)
	}
	if _, err := FromSources(lookup, []Source{{File: dir + "/missing"}}); err == nil {
		t.Error("missing file: want error")
	}
}

func TestContains(t *testing.T) {
	r := New(token)
	for _, s := range []string{token, "A=" + token, base64.StdEncoding.EncodeToString([]byte(token))} {
		if !r.Contains(s) {
			t.Errorf("Contains(%q) = false", s)
		}
	}
	if r.Contains("PATH=/usr/bin") {
		t.Error("Contains(PATH) = true")
	}
}

func TestBase64Padded(t *testing.T) {
	r := New("abcdefgh") // 8 bytes: the encoding ends in "="
	enc := base64.StdEncoding.EncodeToString([]byte("abcdefgh"))
	if got := r.String(enc); strings.Contains(got, enc[:8]) || !strings.HasPrefix(got, Mask) {
		t.Errorf("String(%q) = %q", enc, got)
	}
}
