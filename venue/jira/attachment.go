package jira

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/perfbot/perfbot/venue/retry"
)

// MaxAttachment bounds a downloaded attachment.
const MaxAttachment = 64 << 20

// attachmentTimeout bounds the download of one attachment.
const attachmentTimeout = 2 * time.Minute

// Attachment downloads the attachment at url (its content address, such
// as https://issues.example.org/secure/attachment/10001/fix.patch) with
// the client's credentials, so that a job carries its patch and benchmark
// hosts need no JIRA secrets. An address off the site is refused before
// anything is sent: the credentials go to the site only. One try; errors
// never hold a secret.
func (c *Client) Attachment(ctx context.Context, url string) (string, error) {
	if !strings.HasPrefix(url, c.base+"/") {
		return "", fmt.Errorf("patch %s is not on %s: not sending credentials there", url, c.base)
	}
	text, err := c.fetchPatch(ctx, url)
	return text, retry.Redact(err, c.secrets...)
}

func (c *Client) fetchPatch(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	c.auth(req)
	req.Header.Set("Accept", "text/x-patch, text/plain, */*")
	resp, err := c.fetch.Do(req)
	if err != nil {
		return "", fmt.Errorf("fetch patch %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("fetch patch %s: %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxAttachment+1))
	if err != nil {
		return "", fmt.Errorf("fetch patch %s: %w", url, err)
	}
	if len(data) > MaxAttachment {
		return "", fmt.Errorf("fetch patch %s: larger than %d MiB", url, MaxAttachment>>20)
	}
	return string(data), nil
}
