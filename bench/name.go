package bench

import "strings"

// TrimProcs returns a benchmark's name without the GOMAXPROCS suffix go
// test appends ("Scan/small-8" gives "Scan/small"), so that a benchmark is
// named the same on hosts with different numbers of cores.
func TrimProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 {
		return name
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return name
		}
	}
	return name[:i]
}
