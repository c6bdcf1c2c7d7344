package github

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/config"
)

// TestConfigFrom: venues.github gives a token or a GitHub App, whichever
// it configures, and names the missing piece when it gives neither.
func TestConfigFrom(t *testing.T) {
	env := config.Env{
		Getenv: func(k string) string { return map[string]string{"GITHUB_TOKEN": "ghp_x", "MY_TOKEN": "ghp_y"}[k] },
		ReadFile: func(name string) ([]byte, error) {
			if name == "/etc/perfbot/app.pem" {
				return []byte("-----BEGIN RSA PRIVATE KEY-----\n...\n"), nil
			}
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		},
	}
	tests := []struct {
		name  string
		cfg   config.GitHub
		token string
		app   bool
		err   string
	}{
		{"default token", config.GitHub{}, "ghp_x", false, ""},
		{"named token", config.GitHub{TokenEnv: "MY_TOKEN"}, "ghp_y", false, ""},
		{"empty token", config.GitHub{TokenEnv: "NONE"}, "", false, "no token in $NONE"},
		{"app", config.GitHub{AppID: "123", InstallationID: 4, PrivateKeyFile: "/etc/perfbot/app.pem"}, "", true, ""},
		{"app without installation", config.GitHub{AppID: "123", PrivateKeyFile: "/etc/perfbot/app.pem"}, "", false, "set venues.github.app_id, installation_id and private_key_file"},
		{"app key missing", config.GitHub{AppID: "123", InstallationID: 4, PrivateKeyFile: "/nope.pem"}, "", false, "GitHub App: "},
	}
	for _, tt := range tests {
		gc, err := ConfigFrom(tt.cfg, env)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || gc.Token != tt.token || (gc.App != nil) != tt.app {
			t.Errorf("%s: token %q, app %v, %v", tt.name, gc.Token, gc.App != nil, err)
		}
		if tt.app && (gc.App.ID != "123" || gc.App.InstallationID != 4 || !strings.HasPrefix(string(gc.App.PrivateKey), "-----BEGIN")) {
			t.Errorf("%s: app %+v", tt.name, gc.App)
		}
	}
	if _, err := New(Config{}); err == nil {
		t.Errorf("New without credentials: %v, want an error", err)
	}
}
