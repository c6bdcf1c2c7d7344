// Package pgtest starts a throwaway PostgreSQL server for tests: a fresh
// cluster from initdb in a temporary directory, listening on a free loopback
// port, stopped and removed when the test ends.
//
// PostgreSQL refuses to run as root, so when the test runs as root the
// cluster is created and served as the unprivileged user "nobody" (or
// "postgres" when it exists).
package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// binDirs are where PostgreSQL's server binaries are looked for after PATH.
var binDirs = []string{
	"/usr/lib/postgresql/17/bin",
	"/usr/lib/postgresql/16/bin",
	"/usr/lib/postgresql/15/bin",
	"/usr/lib/postgresql/14/bin",
	"/usr/local/pgsql/bin",
}

// Server is a running test cluster.
type Server struct {
	// Dir holds the cluster's data directory and its socket.
	Dir string
	// Port is the loopback TCP port it listens on.
	Port int
	n    int
}

// URL returns a connection URL for the named database as user postgres.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

// find returns the path of a PostgreSQL binary, or "".
func find(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, d := range binDirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Start starts a server for t, or skips t when initdb or postgres is not
// installed. The server is stopped when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	initdb, postgres := find("initdb"), find("postgres")
	if initdb == "" || postgres == "" {
		t.Skip("PostgreSQL server binaries (initdb, postgres) not found on PATH or in /usr/lib/postgresql/*/bin; install the postgresql Debian package to run this test")
	}
	cred, err := credential()
	if err != nil {
		t.Skipf("cannot run PostgreSQL: %v", err)
	}
	// t.TempDir is private to root; a directory directly under the system
	// temp directory can be handed to the server's user.
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(dir, "data")
	run := func(name string, args ...string) *exec.Cmd {
		c := exec.Command(name, args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "LC_ALL=C")
		if cred != nil {
			c.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		return c
	}
	var out bytes.Buffer
	c := run(initdb, "-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8")
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out.String())
	}
	var srv *Server
	for attempt := 0; attempt < 3 && srv == nil; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		var log bytes.Buffer
		cmd := run(postgres, "-D", data, "-p", strconv.Itoa(port), "-k", dir,
			"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
			"-c", "synchronous_commit=off", "-c", "full_page_writes=off",
			"-c", "max_connections=200")
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatalf("postgres: %v", err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		if waitReady(port, exited) {
			srv = &Server{Dir: dir, Port: port}
			t.Cleanup(func() {
				cmd.Process.Signal(syscall.SIGINT) // fast shutdown
				select {
				case <-exited:
				case <-time.After(10 * time.Second):
					cmd.Process.Kill()
					<-exited
				}
			})
			break
		}
		cmd.Process.Kill()
		<-exited
		t.Logf("postgres on port %d did not start:\n%s", port, log.String())
	}
	if srv == nil {
		t.Fatal("postgres did not start")
	}
	return srv
}

// NewDB creates a fresh, empty database on s and returns its URL.
func (s *Server) NewDB(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		t.Fatalf("connect to test server: %v", err)
	}
	defer conn.Close(ctx)
	s.n++
	name := fmt.Sprintf("test%d", s.n)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	return s.URL(name)
}

// credential returns the user to run PostgreSQL as: nil when not root.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, fmt.Errorf("running as root and neither user postgres nor nobody exists")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady waits until the port accepts connections, or the server exits.
func waitReady(port int, exited chan error) bool {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			exited <- err
			return false
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port))
		if err == nil {
			c.Close(ctx)
			cancel()
			return true
		}
		cancel()
		time.Sleep(50 * time.Millisecond)
	}
	return false
}
