package sandbox

import (
	"os"
	"strconv"
	"strings"
)

// countProcs counts the processes of user uid below pid (pid excluded),
// and those of uid on the whole host, from /proc. It is how a command
// without a pids cgroup is stopped at its process limit: RLIMIT_NPROC
// refuses forks once the user's processes on the host reach it, but
// leaves a fork bomb spinning until its timeout.
func countProcs(pid, uid int) (tree, user int) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, 0
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
		if realUID(p) == uid {
			mine[p] = true
			user++
		}
	}
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
			tree++
		}
	}
	return tree, user
}

// realUID returns the real user of process pid (-1 when it is gone).
func realUID(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				if u, err := strconv.Atoi(f[0]); err == nil {
					return u
				}
			}
		}
	}
	return -1
}
