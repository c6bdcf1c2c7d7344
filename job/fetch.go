package job

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// maxPatch bounds a fetched patch.
const maxPatch = 64 << 20

// FetchPatch downloads a job's PatchURL, without credentials: the
// intakes fetch a patch that needs them in the service, through the venue's
// client (venue/jira.Client.Attachment), so that jobs carry their patch and
// benchmark hosts hold no venue secrets.
func FetchPatch(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "text/x-patch, text/plain, */*")
	resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
	if err != nil {
		return "", fmt.Errorf("fetch patch %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("fetch patch %s: %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxPatch+1))
	if err != nil {
		return "", fmt.Errorf("fetch patch %s: %w", url, err)
	}
	if len(data) > maxPatch {
		return "", fmt.Errorf("fetch patch %s: larger than %d MiB", url, maxPatch>>20)
	}
	return string(data), nil
}
