package runner

// schedule returns, for count rounds over the variants, the order in which
// the variants run: the order alternates round by round (A B, B A, B A, A B)
// so that slow drift of the machine (heat, background load, caches) weighs
// on every variant alike. With more than two variants each round rotates the
// previous order and every other round reverses it.
func schedule(variants []string, count int) [][]string {
	out := make([][]string, count)
	n := len(variants)
	for r := 0; r < count; r++ {
		order := make([]string, n)
		rot := (r / 2) % max(n, 1)
		for i := range variants {
			order[i] = variants[(i+rot)%n]
		}
		if r%2 == 1 {
			for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
				order[i], order[j] = order[j], order[i]
			}
		}
		out[r] = order
	}
	return out
}
