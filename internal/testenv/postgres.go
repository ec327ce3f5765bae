package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// StartPostgres starts Debian's PostgreSQL server in a fresh cluster of
// its own (initdb into a test folder, trust authentication, no fsync) on
// a free loopback port, and stops it by PID when the test ends. It
// returns the URL of its "postgres" database. As root, the server runs as
// the "postgres" user Debian's package makes (it refuses to run as root).
func StartPostgres(t testing.TB) string {
	t.Helper()
	Integration(t)
	bin := postgresBin(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	cred, err := postgresCredential(dir)
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "tairbench", "--auth=trust", "-E", "UTF8", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	for attempt := 0; attempt < 3; attempt++ {
		port := FreePort(t)
		cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port), "-k", dir,
			"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		log, err := os.Create(filepath.Join(dir, "postgres.log"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatalf("start postgres: %v", err)
		}
		stop := func() { stopPostgres(cmd); _ = log.Close() }
		if postgresReady(bin, port, 30*time.Second) {
			t.Cleanup(stop)
			return fmt.Sprintf("postgres://tairbench@127.0.0.1:%d/postgres?sslmode=disable", port)
		}
		stop()
	}
	out, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
	t.Fatalf("postgres did not start; log:\n%s", out)
	return ""
}

// postgresReady waits until the server on port accepts connections
// (pg_isready), not only until it listens: it listens before it has
// recovered its cluster.
func postgresReady(bin string, port int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if exec.Command(filepath.Join(bin, "pg_isready"), "-q", "-h", "127.0.0.1", "-p", strconv.Itoa(port)).Run() == nil {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// postgresBin is the newest /usr/lib/postgresql/N/bin holding initdb.
func postgresBin(t testing.TB) string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		a, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		b, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return a > b
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d
		}
	}
	t.Fatalf("PostgreSQL not found in /usr/lib/postgresql: run 'make test' (scripts/install-deps.sh installs Debian's postgresql) or set %s=1 to skip integration tests", SkipVar)
	return ""
}

// postgresCredential is, as root, the "postgres" user's, with dir handed
// to it and its parents opened for it to pass through; nil otherwise.
func postgresCredential(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root needs Debian's postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	// t.TempDir's parent is private to root: let others pass through it.
	if err := os.Chmod(filepath.Dir(dir), 0o711); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// stopPostgres asks the server to stop at once (SIGINT: fast shutdown,
// its backends too) and kills it if it has not within 10 s.
func stopPostgres(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan struct{})
	go func() { _, _ = cmd.Process.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}
