package store

import "strings"

// RedactDSN is a data source name fit to print: a URL's password is
// replaced by xxxxx.
func RedactDSN(dsn string) string {
	if i := strings.Index(dsn, "://"); i >= 0 {
		if at := strings.LastIndex(dsn, "@"); at > i {
			if c := strings.Index(dsn[i+3:at], ":"); c >= 0 {
				return dsn[:i+3+c] + ":xxxxx" + dsn[at:]
			}
		}
	}
	return dsn
}
