package sandbox

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// procCount is what countProcs found.
type procCount struct {
	// tree is the number of processes of the user below the command's
	// first process, user those of the user on the whole host.
	tree, user int
	// rss is the resident memory of the processes below the command's
	// first process, whatever their user, in bytes.
	rss int64
}

// countProcs counts, from /proc, the processes of user uid below pid (pid
// excluded) and on the whole host, and the resident memory of the tree. It
// is how a command without cgroups is stopped at its limits: RLIMIT_NPROC
// refuses forks once the user's processes on the host reach it but leaves
// a fork bomb spinning until its timeout, and RLIMIT_DATA does not see
// memory a program maps over its own reservations (as Go's runtime does).
func countProcs(pid, uid int) procCount {
	var c procCount
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return c
	}
	children := map[int][]int{}
	mine := map[int]bool{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...": comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			children[pp] = append(children[pp], p)
		}
		// The owner of /proc/PID is the process's effective user, which
		// is its real user in the sandbox (setpriv sets both).
		if fi, err := os.Stat("/proc/" + e.Name()); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == uid {
				mine[p] = true
				c.user++
			}
		}
	}
	page := int64(os.Getpagesize())
	queue := append([]int(nil), children[pid]...)
	seen := map[int]bool{}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		queue = append(queue, children[p]...)
		if mine[p] {
			c.tree++
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/statm"); err == nil {
			if f := strings.Fields(string(b)); len(f) > 1 {
				if n, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					c.rss += n * page
				}
			}
		}
	}
	return c
}
