package intake

// IsCommitID reports whether s is a full hexadecimal commit id in lower
// case (SHA-1 or SHA-256), as a webhook must name the commit it reports.
func IsCommitID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}
