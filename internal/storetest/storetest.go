// Package storetest gives tests a throwaway store.
package storetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/perfbot/perfbot/store"
)

// SQLite opens a fresh SQLite store in the test's temporary directory and
// closes it when the test ends.
func SQLite(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), store.SQLite, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
