package venue

import "strings"

// NotPatch says why text is not a patch perfbot can apply, or "" when it
// is one: every file has "--- " and "+++ " header lines and hunks start
// with "@@ -", or git's binary and rename-only forms. A web page (a login
// form served in place of an attachment) is refused before anything is
// applied, so that it is not answered as a patch that "does not apply".
func NotPatch(text string) string {
	if strings.TrimSpace(text) == "" {
		return "the file is empty"
	}
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "<") {
		return "it is an HTML or XML document (a login page?)"
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	files, hunks, gitOnly := 0, 0, 0
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			files++
		case strings.HasPrefix(l, "@@ -"):
			hunks++
		case strings.HasPrefix(l, "Binary files "), strings.HasPrefix(l, "GIT binary patch"), strings.HasPrefix(l, "rename to "), strings.HasPrefix(l, "new mode "):
			gitOnly++
		}
	}
	switch {
	case files > 0 && hunks > 0, gitOnly > 0 && strings.Contains(text, "diff --git "):
		return ""
	case files == 0:
		return `no "--- " and "+++ " file header lines`
	}
	return `no "@@" hunk`
}
