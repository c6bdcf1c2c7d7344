package report_test

import (
	"fmt"
	"os"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/report"
)

// The HBase cache seed: the same code under two configurations, one run
// each, rendered as JIRA wiki markup.
func ExampleRender() {
	results := []*bench.Result{
		{Benchmark: "randomRead", Params: bench.Params{{Name: "threads", Value: "100"}}, Unit: "QPS",
			Better: bench.HigherIsBetter, Summary: &bench.Summary{Mean: 421940.9, N: 1}, Variant: "onheap"},
		{Benchmark: "randomRead", Params: bench.Params{{Name: "threads", Value: "100"}}, Unit: "QPS",
			Better: bench.HigherIsBetter, Summary: &bench.Summary{Mean: 476190.5, N: 1}, Variant: "offheap"},
	}
	cmp, err := compare.Compare(results, compare.Options{Base: "onheap"})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := report.Render(os.Stdout, "jira", cmp); err != nil {
		fmt.Println(err)
	}
	// Output:
	// h3. (?) perfbot: no significant change; randomRead threads=100 noisy
	// | (/) *{color:green}+1 overall{color}* | offheap vs onheap: 0 better, 0 worse, 0 same, 1 noisy |
	//
	// *QPS*
	// ||Benchmark||threads||onheap||offheap||Diff||Verdict||p, n||
	// |randomRead|100|421,940.9|476,190.5|+12.86%|(?) {color:#b26b00}noisy{color}|p=? n=1|
	//
	// _p: the chance of a difference this large if the patch changed nothing; below the significance level, the change counts · n: measurements per side (base+patch when they differ) · noisy: the spread is too wide to tell_
}

// The HBase WAL seed's sweep: threads down, variants across, the speed-up
// in the better direction.
func ExampleRender_sweep() {
	var results []*bench.Result
	for _, r := range []struct {
		threads     string
		base, async float64
	}{{"1", 837, 228}, {"3", 647, 274}, {"5", 609, 310}} {
		for v, secs := range map[string]float64{"default": r.base, "async": r.async} {
			results = append(results, &bench.Result{Benchmark: "WALPerformanceEvaluation", Metric: "Time",
				Params: bench.Params{{Name: "threads", Value: r.threads}}, Unit: "s",
				Summary: &bench.Summary{Mean: secs, N: 1}, Variant: v})
		}
	}
	cmp, err := compare.Compare(results, compare.Options{Base: "default", Candidates: []string{"async"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := report.Render(os.Stdout, "text", cmp); err != nil {
		fmt.Println(err)
	}
	// Output:
	// NO CLEAR CHANGE: no significant change; 3 noisy
	// async vs default: 0 better, 0 worse, 0 same, 3 noisy
	//
	// WALPerformanceEvaluation · Time (s)
	// threads  default  async  diff
	// 1            837    228  3.7x noisy
	// 3            647    274  2.4x noisy
	// 5            609    310  2.0x noisy
	//
	// p: the chance of a difference this large if the patch changed nothing;
	// below the significance level, the change counts
	// n: measurements per side (base+patch when they differ)
	// noisy: the spread is too wide to tell
}
