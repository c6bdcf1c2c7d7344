// Package store keeps perfbot's history: the runs it made, their results and
// comparisons, the answers it posted, the patches it already tested and the
// webhook deliveries it already handled.
//
// The same schema lives on SQLite (one file, the embedded default) or on
// PostgreSQL (when several benchmark hosts share the history). Queries are
// written once with "?" placeholders and rewritten for PostgreSQL; times
// are stored as UTC text in a fixed-width format, so they sort and compare
// the same way on both.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"
)

// Drivers.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// timeFormat is how times are stored: fixed width, so text order is time
// order.
const timeFormat = "2006-01-02T15:04:05.000000Z"

// Store is an open history database.
type Store struct {
	db     *sql.DB
	driver string
}

// OpenExisting opens the store as Open does, but a SQLite file that is
// not there is an error instead of a new, empty store: a mistyped path
// says so.
func OpenExisting(ctx context.Context, driver, dsn string) (*Store, error) {
	if driver == SQLite {
		if _, err := os.Stat(dsn); err != nil {
			return nil, fmt.Errorf("store %s: %w", dsn, err)
		}
	}
	return Open(ctx, driver, dsn)
}

// Open opens (creating if needed) the history at dsn and brings its schema
// up to date. For SQLite dsn is a file path; for PostgreSQL a connection
// URL or key=value string. A SQLite file is created 0600, in directories
// created 0700 (see prepareSQLiteFile).
func Open(ctx context.Context, driver, dsn string) (*Store, error) {
	var db *sql.DB
	var err error
	switch driver {
	case SQLite, "":
		driver = SQLite
		if err := prepareSQLiteFile(dsn); err != nil {
			return nil, fmt.Errorf("open sqlite store %s: %w", dsn, err)
		}
		db, err = sql.Open("sqlite", SQLiteDSN(dsn))
		if err == nil {
			// SQLite has one writer; one connection avoids SQLITE_BUSY
			// between this process's own goroutines.
			db.SetMaxOpenConns(1)
		}
	case Postgres, "postgresql", "pgx":
		driver = Postgres
		db, err = sql.Open("pgx", dsn)
	default:
		return nil, fmt.Errorf("store driver %q: want %q or %q", driver, SQLite, Postgres)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s store: %w", driver, err)
	}
	s := &Store{db: db, driver: driver}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s store: %w", driver, err)
	}
	if err := s.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// SQLiteDSN turns a file path into a modernc.org/sqlite DSN with WAL
// journaling, a busy timeout and foreign keys on. A DSN that already starts
// with "file:" is returned unchanged.
func SQLiteDSN(path string) string {
	if strings.HasPrefix(path, "file:") {
		return path
	}
	return "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// DB returns the underlying database, for River's SQLite driver and tests.
func (s *Store) DB() *sql.DB { return s.db }

// Driver returns SQLite or Postgres.
func (s *Store) Driver() string { return s.driver }

// q rewrites a query's "?" placeholders as "$1", "$2"... on PostgreSQL.
// Queries contain no "?" inside string literals.
func (s *Store) q(query string) string {
	if s.driver != Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (s *Store) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return s.db.ExecContext(ctx, s.q(query), args...)
}

func (s *Store) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return s.db.QueryContext(ctx, s.q(query), args...)
}

func (s *Store) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return s.db.QueryRowContext(ctx, s.q(query), args...)
}

// fmtTime formats t for storage; the zero time is stored as NULL.
func fmtTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(timeFormat)
}

// parseTime reads a stored time; NULL is the zero time.
func parseTime(ns sql.NullString) (time.Time, error) {
	if !ns.Valid || ns.String == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(timeFormat, ns.String)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored time %q: %w", ns.String, err)
	}
	return t, nil
}
