package parse

import (
	"context"
	"io"
	"runtime"
	"testing"

	"github.com/perfbot/perfbot/bench"
)

// repeatReader yields prefix, then chunk (with sep between copies) until
// at least size bytes were produced, then suffix: a large input without a
// large buffer.
type repeatReader struct {
	prefix, chunk, sep, suffix []byte
	size                       int64
	n                          int64
	copies                     int
	cur                        []byte
	state                      int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		switch {
		case r.state == 0:
			r.cur, r.state = r.prefix, 1
		case r.state == 1 && r.n < r.size:
			if r.copies > 0 {
				r.cur = append(append(r.cur[:0:0], r.sep...), r.chunk...)
			} else {
				r.cur = r.chunk
			}
			r.copies++
		case r.state == 1:
			r.cur, r.state = r.suffix, 2
		default:
			return 0, io.EOF
		}
		r.n += int64(len(r.cur))
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// TestStreamingBoundedMemory parses large generated inputs and checks the
// heap stays bounded while doing so: parsers must not hold their input.
func TestStreamingBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("large streaming input; skipped with -short")
	}
	ycsb := []byte("[READ], Operations, 50193\n[READ], AverageLatency(us), 656.5994859841014\n[READ], 99thPercentileLatency(us), 9471\n2025-09-30 18:52:45:898 7 sec: 100000 operations; 13053.13 current ops/sec;\n")
	jmhRec := []byte(`{"benchmark":"a.B.c","mode":"thrpt","params":{"n":"1"},"primaryMetric":{"score":1.5,"scoreError":0.1,"scoreUnit":"ops/s","rawData":[[1.4,1.5,1.6]]},"secondaryMetrics":{}}`)
	gbRec := []byte(`{"name":"BM_x/8","run_name":"BM_x/8","run_type":"iteration","iterations":10,"real_time":2.5e+02,"cpu_time":2.4e+02,"time_unit":"ns"}`)
	tests := []struct {
		name   string
		format string
		r      *repeatReader
	}{
		{"ycsb-64MB", "ycsb", &repeatReader{chunk: ycsb, size: 64 << 20}},
		{"jmh-json-8MB", "jmh-json", &repeatReader{prefix: []byte("[\n"), chunk: jmhRec, sep: []byte(",\n"), suffix: []byte("\n]\n"), size: 8 << 20}},
		{"gbench-json-8MB", "gbench-json", &repeatReader{prefix: []byte(`{"context":{},"benchmarks":[`), chunk: gbRec, sep: []byte(","), suffix: []byte("]}"), size: 8 << 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := heapInUse()
			var peak uint64
			sample := func() {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
			n := 0
			err := Reader(context.Background(), tt.r, tt.name, tt.format, func(r *bench.Result) error {
				if n++; n%10000 == 0 {
					sample()
				}
				return nil
			})
			sample()
			if err != nil {
				t.Fatal(err)
			}
			if n < 20000 {
				t.Fatalf("only %d results from %d bytes", n, tt.r.n)
			}
			const limit = 64 << 20
			if peak > base+limit {
				t.Errorf("heap in use reached %d MiB (base %d MiB) parsing %d MiB", peak>>20, base>>20, tt.r.n>>20)
			}
			t.Logf("%d results from %d MiB, peak heap in use %.1f MiB (%.1f MiB before)", n, tt.r.n>>20, float64(peak)/(1<<20), float64(base)/(1<<20))
		})
	}
}

// TestCanceled checks that parsers stop when their context ends, also in
// the middle of a large input.
func TestCanceled(t *testing.T) {
	ycsb := []byte("[READ], AverageLatency(us), 656.5\n")
	jmhRec := []byte(`{"benchmark":"a","mode":"thrpt","primaryMetric":{"score":1.5,"scoreUnit":"ops/s","rawData":[[1.5]]}}`)
	for _, tt := range []struct {
		p Parser
		r *repeatReader
	}{
		{YCSB{}, &repeatReader{chunk: ycsb, size: 64 << 20}},
		{JMHJSON{}, &repeatReader{prefix: []byte("[\n"), chunk: jmhRec, sep: []byte(",\n"), suffix: []byte("]"), size: 64 << 20}},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		n := 0
		err := tt.p.Parse(ctx, tt.r, "big", func(*bench.Result) error {
			if n++; n == 1000 {
				cancel()
			}
			return nil
		})
		cancel()
		if err != context.Canceled {
			t.Errorf("%s: err = %v after cancel, want context.Canceled", tt.p.Name(), err)
		}
		if tt.r.n > 16<<20 {
			t.Errorf("%s read %d MiB after cancel", tt.p.Name(), tt.r.n>>20)
		}
	}
}
