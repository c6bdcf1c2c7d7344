package github

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	gh "github.com/google/go-github/v60/github"
)

const defaultTimeout = 60 * time.Second

// App identifies a GitHub App installation. perfbot signs a short-lived
// JWT (RS256) with the app's private key, trades it for an installation
// token (POST /app/installations/{id}/access_tokens) and renews that token
// shortly before it expires.
type App struct {
	// ID is the app's numeric ID or its client ID ("Iv1.…"); it becomes
	// the JWT's iss claim.
	ID string
	// InstallationID is the installation on the account owning the
	// repositories.
	InstallationID int64
	// PrivateKey is the PEM private key downloaded from the app's settings
	// (PKCS#1 "RSA PRIVATE KEY" or PKCS#8 "PRIVATE KEY").
	PrivateKey []byte
}

// appTransport authenticates each request with the installation token,
// minting a new one when the current one is near expiry.
type appTransport struct {
	app  App
	key  *rsa.PrivateKey
	base http.RoundTripper
	jwtc *gh.Client // signs in with the JWT, for the token exchange

	mu      sync.Mutex
	token   string
	expires time.Time
}

func newAppTransport(app App, baseURL string, base http.RoundTripper) (*appTransport, error) {
	if app.ID == "" || app.InstallationID == 0 {
		return nil, errors.New("github: a GitHub App needs its app ID (or client ID) and installation ID")
	}
	key, err := parseRSAKey(app.PrivateKey)
	if err != nil {
		return nil, err
	}
	t := &appTransport{app: app, key: key, base: base}
	t.jwtc = gh.NewClient(&http.Client{Transport: jwtTransport{t}, Timeout: defaultTimeout})
	if baseURL != "" {
		api, err := APIBaseURL(baseURL)
		if err != nil {
			return nil, err
		}
		if t.jwtc, err = t.jwtc.WithEnterpriseURLs(api, uploadURL(api)); err != nil {
			return nil, fmt.Errorf("github: base URL %q: %w", baseURL, err)
		}
	}
	return t, nil
}

func parseRSAKey(data []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("github: app private key: no PEM block found (want the .pem file from the app's settings)")
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("github: app private key: %q block is neither PKCS#1 nor PKCS#8 RSA", block.Type)
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("github: app private key: want an RSA key, found %T", k)
	}
	return rk, nil
}

// signJWT returns the app's JWT: issued a minute in the past (clock drift)
// and valid for nine minutes, under GitHub's ten-minute maximum.
func signJWT(key *rsa.PrivateKey, iss string, now time.Time) (string, error) {
	enc := base64.RawURLEncoding
	header := enc.EncodeToString([]byte(`{"alg":"RS256","typ":"JWT"}`))
	// A numeric App ID goes out as a number, a client ID as a string.
	var issuer any = iss
	if n, err := strconv.ParseInt(iss, 10, 64); err == nil {
		issuer = n
	}
	claims, err := json.Marshal(struct {
		IAT int64 `json:"iat"`
		EXP int64 `json:"exp"`
		ISS any   `json:"iss"`
	}{now.Add(-time.Minute).Unix(), now.Add(9 * time.Minute).Unix(), issuer})
	if err != nil {
		return "", err
	}
	signing := header + "." + enc.EncodeToString(claims)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		return "", fmt.Errorf("github: signing app JWT: %w", err)
	}
	return signing + "." + enc.EncodeToString(sig), nil
}

// jwtTransport signs requests with a fresh JWT (only the token exchange).
type jwtTransport struct{ t *appTransport }

func (j jwtTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := signJWT(j.t.key, j.t.app.ID, time.Now())
	if err != nil {
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	return j.t.base.RoundTrip(r)
}

func (t *appTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := t.installationToken(req.Context())
	if err != nil {
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	return t.base.RoundTrip(r)
}

func (t *appTransport) current() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.token
}

// installationToken returns the cached token, or mints one when it expires
// within five minutes.
func (t *appTransport) installationToken(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.token != "" && time.Until(t.expires) > 5*time.Minute {
		return t.token, nil
	}
	it, _, err := t.jwtc.Apps.CreateInstallationToken(ctx, t.app.InstallationID, nil)
	if err != nil {
		return "", fmt.Errorf("github: app installation %d token: %w", t.app.InstallationID, err)
	}
	if it.GetToken() == "" {
		return "", fmt.Errorf("github: app installation %d: no token in the answer", t.app.InstallationID)
	}
	t.token = it.GetToken()
	t.expires = it.GetExpiresAt().Time
	if t.expires.IsZero() {
		t.expires = time.Now().Add(time.Hour)
	}
	return t.token, nil
}
