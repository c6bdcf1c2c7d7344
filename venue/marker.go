package venue

import "strings"

// HTMLCommentMarker is a hidden HTML comment naming an answer's key, for
// venues that render Markdown with HTML (GitHub, GitLab): it finds the
// answer again on a rerun without showing in it.
func HTMLCommentMarker(key string) string {
	// "--" would end the HTML comment early; keep the key printable.
	k := strings.NewReplacer("--", "-", ">", "", "\n", " ", "\r", "").Replace(key)
	return "<!-- perfbot:" + k + " -->"
}
