package runner

import (
	"context"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/sandbox"
)

// pgBin is where the tests look for PostgreSQL's server programs.
const pgBin = "/usr/lib/postgresql/15/bin"

// bubblewrap returns a working Bubblewrap runner, or skips the test when
// bwrap is not installed or cannot run here.
func bubblewrap(t *testing.T) *sandbox.Bubblewrap {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("bubblewrap is not installed: CI must install the Debian package bubblewrap (%v)", err)
		}
		t.Skipf("bubblewrap is not installed (apt-get install bubblewrap): %v", err)
	}
	b := &sandbox.Bubblewrap{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := b.Check(ctx); err != nil {
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
	return b
}

// searchableTempDir is a temporary directory the sandbox user may reach.
func searchableTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// pgSetup starts PostgreSQL in the variant's data directory with a
// superuser whose random password is gone once setup ends, and a login
// role "bench" without superuser or createrole that owns database bench.
const pgSetup = `cd {datadir}
umask 077
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > su.pw
{pgbin}/initdb -D pg -U postgres --pwfile=su.pw -A scram-sha-256 --no-sync > initdb.log
{pgbin}/pg_ctl -D pg -l server.log -w -t 60 -o "-p {port} -k {datadir} -c listen_addresses=127.0.0.1" start > /dev/null
PGPASSWORD=$(cat su.pw); export PGPASSWORD; rm su.pw
psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p {port} -U postgres -d postgres \
  -c "CREATE ROLE bench LOGIN PASSWORD 'bench' NOSUPERUSER NOCREATEROLE NOCREATEDB" \
  -c "CREATE DATABASE bench OWNER bench"
`

// hostileBench is patch code: a benchmark that measures the server and
// tries to get out through it.
const hostileBench = `#!/bin/sh
P=$1 D=$2 HOSTPORT=$3 MARK=$4 SECRET=$5
L=$PWD/hostile.log
export PGCONNECT_TIMEOUT=3
{
echo "== copy as bench"
PGPASSWORD=bench psql -X -h 127.0.0.1 -p $P -U bench -d bench -c "COPY (select 1) TO PROGRAM 'touch /tmp/$MARK'"
echo "== copy as postgres"
PGPASSWORD=postgres psql -X -h 127.0.0.1 -p $P -U postgres -d postgres -c "COPY (select 1) TO PROGRAM 'touch /tmp/$MARK'"
PGPASSWORD=postgres psql -X -h $D -p $P -U postgres -d postgres -c "COPY (select 1) TO PROGRAM 'touch /tmp/$MARK'"
echo "== superuser password"
cat $D/su.pw
echo "== escalate"
printf 'local all all trust\nhost all all 127.0.0.1/32 trust\n' > $D/pg/pg_hba.conf
/usr/lib/postgresql/15/bin/pg_ctl -D $D/pg reload
sleep 1
psql -X -h 127.0.0.1 -p $P -U postgres -d postgres -c "COPY (select 1) TO PROGRAM 'touch /tmp/$MARK; id -u > $PWD/copy-uid; cat $SECRET > $PWD/copy-secret 2>&1; cat /etc/shadow >> $PWD/copy-secret 2>&1'"
psql -X -h 127.0.0.1 -p $P -U postgres -d postgres -c "select pg_read_file('$SECRET')"
echo "== host listener"
psql -X -w -h 127.0.0.1 -p $HOSTPORT -U postgres -d postgres -c "select 1"
echo "== read"
cat $SECRET
head -1 /etc/shadow
touch /tmp/$MARK
} >> $L 2>&1
echo "BenchmarkServer 1 $(PGPASSWORD=bench psql -X -tA -h 127.0.0.1 -p $P -U bench -d bench -c 'select 42') ns/op"
`

// TestHostilePatchAgainstSetupServer runs a suite whose setup starts
// PostgreSQL, under the real bubblewrap, with a benchmark that tries
// COPY ... TO PROGRAM as its role and as the superuser (taking it over by
// rewriting pg_hba.conf, which it can: the server runs as the same
// sandbox user), connects to a listener on the host's loopback and reads
// a secret. Nothing may happen on the host: COPY runs, if at all, inside
// the variant's sandbox as the sandbox user; the host's listener sees no
// connection; the secret stays unread; and the rounds still measure the
// server, each variant in its own sandbox on the same port.
func TestHostilePatchAgainstSetupServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two PostgreSQL servers; skipped with -short")
	}
	b := bubblewrap(t)
	if _, err := os.Stat(pgBin + "/postgres"); err != nil {
		t.Skipf("PostgreSQL 15 is not installed (apt-get install postgresql-15): %v", err)
	}
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skipf("psql is not installed (apt-get install postgresql-client): %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	hostPort := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	const token = "ghp_HostileSetupSecret0123456789abcdef"
	secret := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(secret, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	mark := "perfbot-hostile-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	hostMark := filepath.Join(os.TempDir(), mark)
	defer os.Remove(hostMark)

	r := gitrepo.New(t)
	r.Commit("benchmark", map[string]string{"bench.sh": hostileBench})
	cache := searchableTempDir(t)
	suite := config.Suite{
		Name:     "pg",
		Command:  "sh bench.sh {port} {datadir} " + hostPort + " " + mark + " " + secret,
		Parser:   "gobench",
		Count:    2,
		Vars:     map[string]string{"pgbin": pgBin},
		Setup:    pgSetup,
		Teardown: "{pgbin}/pg_ctl -D {datadir}/pg -m immediate -w stop > /dev/null; echo {port} > {worktree}/teardown-{variant}",
		Variants: config.Variants{{Name: "a"}, {Name: "b", Env: map[string]string{"B": "1"}}},
	}
	env, err := sandbox.Environ(os.Environ(), sandbox.BaseEnv, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, err := Run(context.Background(), Options{
		Repo: r.Dir, Base: "HEAD", Suites: []config.Suite{suite},
		CacheDir: cache, Sandbox: b, SandboxName: "bubblewrap", Env: env,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("run took %s", time.Since(start).Round(time.Millisecond))
	for _, f := range out.Failures {
		t.Errorf("%s failed at %s: %s\n%s", f.Variant, f.Stage, f.Message, f.LogTail)
	}
	logs := findFiles(t, cache, "hostile.log", "copy-uid", "copy-secret", "teardown-a", "teardown-b")
	t.Logf("what the patch saw:\n%s", logs["hostile.log"])

	if _, err := os.Stat(hostMark); err == nil {
		t.Errorf("COPY ... TO PROGRAM or the benchmark touched %s on the host", hostMark)
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("the host's listener on 127.0.0.1:%s accepted %d connection(s) from the sandbox", hostPort, n)
	}
	for name, content := range logs {
		if strings.Contains(content, token) {
			t.Errorf("%s holds the host's secret", name)
		}
	}
	hostile := logs["hostile.log"]
	for _, want := range []string{
		"pg_execute_server_program role to COPY",               // the bench role
		"password authentication failed for user \"postgres\"", // the superuser, without its password
		"No such file or directory",                            // su.pw is gone, the secret unseen
	} {
		if !strings.Contains(hostile, want) {
			t.Errorf("hostile.log does not say %q", want)
		}
	}
	// The superuser was taken over inside the sandbox, so COPY TO PROGRAM
	// ran: as the sandbox user, in the sandbox.
	if os.Geteuid() == 0 {
		if got := strings.TrimSpace(logs["copy-uid"]); !strings.HasPrefix(got, strconv.Itoa(sandbox.DefaultUID)) {
			t.Errorf("COPY TO PROGRAM ran as %q, want the sandbox user %d", got, sandbox.DefaultUID)
		}
	} else if logs["copy-uid"] == "" {
		t.Error("COPY TO PROGRAM as the taken-over superuser did not run: the test proves less than it says")
	}
	if !strings.Contains(logs["copy-secret"], "No such file") || !strings.Contains(logs["copy-secret"], "Permission denied") {
		t.Errorf("COPY TO PROGRAM read the secret or /etc/shadow: %q", logs["copy-secret"])
	}
	// Both servers were measured, each in its own sandbox on the same port.
	n := map[string]int{}
	for _, res := range out.Results {
		for _, x := range res.Samples {
			if x != 42 {
				t.Errorf("%s: sample %v, want 42 from the server", res.Variant, x)
			}
		}
		n[res.Variant] += len(res.Samples)
	}
	if n["a"] != 2 || n["b"] != 2 {
		t.Errorf("samples per variant %v, want 2 each", n)
	}
	for _, v := range []string{"a", "b"} {
		if got := strings.TrimSpace(logs["teardown-"+v]); got != strconv.Itoa(sessionPort) {
			t.Errorf("teardown of %s: port %q, want the fixed %d", v, got, sessionPort)
		}
	}
}

// findFiles reads the files of the given names anywhere under root.
func findFiles(t *testing.T, root string, names ...string) map[string]string {
	t.Helper()
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	got := map[string]string{}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && want[d.Name()] {
			b, _ := os.ReadFile(path)
			got[d.Name()] += string(b)
		}
		return nil
	})
	return got
}
