package gerrit_test

import (
	"testing"

	"github.com/perfbot/perfbot/venue/gerrit"
)

// FuzzDecodeChanges feeds hostile answers to the decoding of a change
// list: it must fail cleanly or give changes whose current patch set is
// read without a panic.
func FuzzDecodeChanges(f *testing.F) {
	f.Add([]byte(")]}'\n[{\"id\":\"store~1\",\"_number\":1,\"updated\":\"2026-12-01 09:00:00.000000000\",\"current_revision\":\"a\",\"revisions\":{\"a\":{\"_number\":2}}}]"))
	f.Add([]byte(")]}'\n[{\"updated\":\"x\"}]"))
	f.Add([]byte("<html>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var cs []gerrit.Change
		if err := gerrit.Decode(data, &cs); err != nil {
			return
		}
		for _, c := range cs {
			_ = c.PatchSet()
			_ = c.Owner.Login()
		}
	})
}
