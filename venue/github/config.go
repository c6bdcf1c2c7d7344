package github

import (
	"fmt"

	"github.com/perfbot/perfbot/config"
)

// ConfigFrom reads the credentials venues.github names, through env: the
// GitHub App when app_id or installation_id is set, else the token. The
// address and posting settings are copied; HTTPClient and Retry are left
// to the caller.
func ConfigFrom(c config.GitHub, env config.Env) (Config, error) {
	gc := Config{BaseURL: c.URL, Login: c.Login, StatusContext: c.StatusContext, Checks: c.Checks}
	if c.UsesApp() {
		ks := c.PrivateKey()
		key, err := ks.Read(env)
		if err != nil {
			return Config{}, fmt.Errorf("GitHub App: %w", err)
		}
		if c.AppID == "" || c.InstallationID == 0 || key == "" {
			where := ks.Source()
			if where == "" || where == "$" {
				where = "venues.github.private_key_file"
			}
			return Config{}, fmt.Errorf("GitHub App is not configured: set venues.github.app_id, installation_id and private_key_file (private key looked for in %s)", where)
		}
		gc.App = &App{ID: c.AppID, InstallationID: c.InstallationID, PrivateKey: []byte(key)}
		return gc, nil
	}
	ts := c.Token()
	tok, err := ts.Read(env)
	if err != nil {
		return Config{}, fmt.Errorf("GitHub: %w", err)
	}
	if tok == "" {
		return Config{}, fmt.Errorf("GitHub is not configured: no token in %s (set it, or venues.github.token_env / token_file, or a GitHub App)", ts.Source())
	}
	gc.Token = tok
	return gc, nil
}
