package bench

import "testing"

func TestTrimProcs(t *testing.T) {
	for in, want := range map[string]string{
		"Append-2":                   "Append",
		"BenchmarkScan/small-8":      "BenchmarkScan/small",
		"Scan/size=1-32":             "Scan/size=1",
		"Scan/size=-1":               "Scan/size=",
		"Scan/mode=read-write":       "Scan/mode=read-write",
		"Scan-":                      "Scan-",
		"Scan":                       "Scan",
		"MemFetchTasksBenchmark.run": "MemFetchTasksBenchmark.run",
		"Scan-8x":                    "Scan-8x",
		"":                           "",
	} {
		if got := TrimProcs(in); got != want {
			t.Errorf("TrimProcs(%q) = %q, want %q", in, got, want)
		}
	}
}
