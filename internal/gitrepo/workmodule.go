package gitrepo

import "fmt"

// WorkSource is work/work.go of a small Go module for tests: Work loops n
// times, so halving n makes it twice as fast; Other does a fixed amount of
// work that no test changes.
func WorkSource(n int) string {
	return fmt.Sprintf(`package work

var sink uint64

// Work does an amount of arithmetic proportional to its loop count.
func Work() {
	x := sink
	for i := 0; i < %d; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

// Other is untouched by the tests' patches.
func Other() {
	x := sink
	for i := 0; i < 100000; i++ {
		x = x*6364136223846793005 + 1
	}
	sink = x
}
`, n)
}

// WorkBench is work/work_test.go: a benchmark of Work and one of Other.
const WorkBench = `package work

import "testing"

func BenchmarkWork(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Work()
	}
}

func BenchmarkOther(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Other()
	}
}
`

// WorkModule is the files of the module: go.mod, work/work.go with a loop
// of n, and work/work_test.go when withBench is set.
func WorkModule(n int, withBench bool) map[string]string {
	files := map[string]string{
		"go.mod":       "module example.org/work\n\ngo 1.22\n",
		"work/work.go": WorkSource(n),
	}
	if withBench {
		files["work/work_test.go"] = WorkBench
	}
	return files
}
