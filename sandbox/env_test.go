package sandbox

import (
	"reflect"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/redact"
)

func TestEnviron(t *testing.T) {
	host := []string{"PATH=/usr/bin", "GITHUB_TOKEN=ghp_x", "LANG=C.UTF-8", "HOME=/root", "GOFLAGS=-race", "JIRA_PASSWORD=p"}
	tests := []struct {
		name       string
		allow, set []string
		want       []string
		wantErr    string
	}{
		{"only allowed", BaseEnv, nil, []string{"HOME=/tmp", "TMPDIR=/tmp", "PATH=/usr/bin", "LANG=C.UTF-8"}, ""},
		{"go and set", append(BaseEnv, GoEnv...), []string{"GOCACHE=/w/.cache", "HOME=/w"},
			[]string{"HOME=/w", "TMPDIR=/tmp", "PATH=/usr/bin", "LANG=C.UTF-8", "GOFLAGS=-race", "GOCACHE=/w/.cache"}, ""},
		{"token refused", []string{"PATH", "GITHUB_TOKEN"}, nil, nil, "GITHUB_TOKEN looks like a credential"},
		{"password refused", []string{"jira_password"}, nil, nil, "credential"},
		{"bad setting", nil, []string{"=x"}, nil, "not KEY=VALUE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Environ(host, tt.allow, tt.set)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCheckSecrets(t *testing.T) {
	const secret = "xoxb-secret-value-42"
	r := redact.New(secret)
	tests := []struct {
		name    string
		spec    Spec
		wantErr string
	}{
		{"clean", Spec{Argv: []string{"go", "test"}, Env: []string{"PATH=/bin"}, Dir: "/w"}, ""},
		{"env", Spec{Argv: []string{"go"}, Env: []string{"TOKEN_COPY=" + secret}}, "environment variable TOKEN_COPY holds a secret"},
		{"argv", Spec{Argv: []string{"curl", "-H", "Authorization: " + secret}}, "argument 2 holds a secret"},
		{"url encoded argv", Spec{Argv: []string{"x", "https://h/?t=" + secret}}, "argument 1"},
		{"path", Spec{Argv: []string{"x"}, Dir: "/w/" + secret}, "a path holds a secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckSecrets(tt.spec, r)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the error shows the secret: %v", err)
			}
		})
	}
	if err := CheckSecrets(Spec{Env: []string{"A=" + secret}}, nil); err != nil {
		t.Errorf("nil Redactor: %v", err)
	}
}
