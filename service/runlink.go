package service

import (
	"strconv"
	"strings"
)

// RunURL is the page of a run under the service's public address
// (service.url), or "" when none is configured.
func RunURL(base string, runID int64) string {
	if base == "" || runID <= 0 {
		return ""
	}
	return strings.TrimSuffix(base, "/") + "/runs/" + strconv.FormatInt(runID, 10)
}
