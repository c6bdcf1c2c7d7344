package sandbox

import (
	"context"
	"os/exec"
	"testing"
)

// BenchmarkCommandStart measures what running one short command costs
// through each way of running it: on the host (Local), in a sandbox of its
// own (Bubblewrap) and in a session started once (Bubblewrap with
// Spec.Session), against starting it directly with os/exec. A benchmark
// round runs a command so; what it costs beyond the command is perfbot's
// overhead.
func BenchmarkCommandStart(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	spec := Spec{Argv: []string{"/bin/true"}, Dir: dir, MaxOutput: 1 << 20}
	b.Run("exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("local", func(b *testing.B) {
		for b.Loop() {
			if _, err := (Local{}).Run(ctx, spec); err != nil {
				b.Fatal(err)
			}
		}
	})
	if ok, why := Available(); !ok {
		b.Skip("bubblewrap: ", why)
	}
	bw := &Bubblewrap{}
	b.Run("bubblewrap", func(b *testing.B) {
		for b.Loop() {
			if res, err := bw.Run(ctx, spec); err != nil || !res.OK() {
				b.Fatal(err, res)
			}
		}
	})
	b.Run("session", func(b *testing.B) {
		s, err := StartSession(ctx, bw, SessionSpec{Writable: []string{dir}})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		sp := spec
		sp.Session = s
		for b.Loop() {
			if res, err := bw.Run(ctx, sp); err != nil || !res.OK() {
				b.Fatal(err, res)
			}
		}
	})
}
