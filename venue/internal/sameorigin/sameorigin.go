// Package sameorigin keeps a venue's credentials on the venue's own host:
// it gives a venue client's http.Client a redirect policy that refuses a
// redirect to another scheme, host or port. net/http drops Authorization
// and Cookie on a redirect to another domain, but not custom headers such
// as GitLab's Private-Token, and not headers a Transport adds to every
// request it sends (go-github's and go-jira's token transports), so a
// server redirecting elsewhere would otherwise receive the token.
package sameorigin

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// maxRedirects is net/http's own limit, kept when hc has no policy.
const maxRedirects = 10

// Client returns a copy of hc (nil means a zero http.Client) whose
// redirects stay on the origin of the first request; a redirect elsewhere
// fails with an error naming venue and both origins. hc's own
// CheckRedirect, if any, still decides same-origin redirects. hc itself is
// not modified.
func Client(hc *http.Client, venue string) *http.Client {
	var c http.Client
	if hc != nil {
		c = *hc
	}
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 {
			from, to := Origin(via[0]), Origin(req)
			if from != to {
				return fmt.Errorf("%s: refusing redirect from %s to %s: credentials are sent only to the configured host", venue, from, to)
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}

// Origin is the request's scheme://host:port, the port written out even
// when it is the scheme's default.
func Origin(req *http.Request) string {
	u := req.URL
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}
