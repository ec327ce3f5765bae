// Package testenv starts real servers for integration tests: Debian's
// redis-server on a free loopback port, stopped by PID when the test ends.
// Tests skip only when TAIRBENCH_SKIP_INTEGRATION=1 is set explicitly;
// otherwise a missing server fails the test.
package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tairbench/tairbench/internal/topology"
)

// SkipVar is the environment variable that opts out of integration tests.
const SkipVar = "TAIRBENCH_SKIP_INTEGRATION"

// Integration skips the test if the developer opted out explicitly.
func Integration(t testing.TB) {
	t.Helper()
	if os.Getenv(SkipVar) == "1" {
		t.Skipf("%s=1: integration test skipped", SkipVar)
	}
}

// FreePort returns a free TCP port on 127.0.0.1, at most 55000. It is
// drawn below the kernel's ephemeral range when it can be, so that a later
// bind to port 0 (an embedded server, say) cannot be handed the same port
// before the caller binds it.
func FreePort(t testing.TB) int {
	t.Helper()
	// A cluster node also listens on port + 10000 (its bus): both are
	// kept below the kernel's ephemeral range, where another test's
	// outgoing connection could take the bus port between this check and
	// the node's bind (the node then exits after its client port opened).
	if lo := ephemeralStart(); lo > 30000 {
		for range 200 {
			port := 15000 + rand.IntN(lo-10000-15000)
			if portFree(port) && portFree(port+10000) {
				return port
			}
		}
	}
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("free port: %v", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if port <= 55000 && portFree(port+10000) {
			return port
		}
	}
}

// portFree says whether a loopback listener can bind port now.
func portFree(port int) bool {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// ephemeralStart is the first port the kernel hands to binds to port 0
// (0 when it cannot tell).
func ephemeralStart() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0
	}
	lo, _ := strconv.Atoi(f[0])
	return lo
}

// Redis is a running redis-server.
type Redis struct {
	Addr string
	Port int
	// TLSPort is set by StartRedisTLS.
	TLSPort int
	cmd     *exec.Cmd
	dir     string
	args    []string
}

// StartRedis starts redis-server with extra config arguments
// (e.g. "--requirepass", "x") and stops it when the test ends.
func StartRedis(t testing.TB, extra ...string) *Redis {
	t.Helper()
	Integration(t)
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server not found: run 'make test' (it installs Debian's redis-server) or set %s=1 to skip integration tests", SkipVar)
	}
	dir := t.TempDir()
	for attempt := 0; attempt < 3; attempt++ {
		port := FreePort(t)
		args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--dir", dir, "--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log")}, extra...)
		cmd := exec.Command(bin, args...)
		if err := cmd.Start(); err != nil {
			t.Fatalf("start redis-server: %v", err)
		}
		r := &Redis{Addr: fmt.Sprintf("127.0.0.1:%d", port), Port: port, cmd: cmd, dir: dir, args: args}
		// A cluster node opens its client port before its bus, and exits
		// when the bus cannot bind: it has started once both listen.
		if waitPort(r.Addr, 5*time.Second) && (!clusterNode(extra) || waitPort(fmt.Sprintf("127.0.0.1:%d", port+10000), 5*time.Second)) {
			t.Cleanup(r.Stop)
			return r
		}
		r.Stop()
	}
	log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
	t.Fatalf("redis-server did not start; log:\n%s", log)
	return nil
}

// clusterNode says whether redis-server's arguments enable cluster mode.
func clusterNode(args []string) bool {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--cluster-enabled" && args[i+1] == "yes" {
			return true
		}
	}
	return false
}

func waitPort(addr string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// Stop kills the server by PID and waits for it.
func (r *Redis) Stop() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGKILL)
	_, _ = r.cmd.Process.Wait()
	r.cmd = nil
}

// Restart starts the stopped server again with the same port, folder and
// arguments (so an append-only file is loaded) and waits until it listens.
func (r *Redis) Restart(t testing.TB) {
	t.Helper()
	if r.cmd != nil {
		t.Fatalf("restart: redis-server %s is running", r.Addr)
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server not found: %v", err)
	}
	cmd := exec.Command(bin, r.args...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("restart redis-server: %v", err)
	}
	r.cmd = cmd
	if !waitPort(r.Addr, 10*time.Second) {
		log, _ := os.ReadFile(filepath.Join(r.dir, "redis.log"))
		t.Fatalf("redis-server did not restart on %s; log:\n%s", r.Addr, log)
	}
}

// doTimeout bounds one Do. It only ends the test of a server that hangs: a
// slow command on a loaded machine must not fail (CI once saw a DEBUG
// POPULATE of 2,000,000 keys take over 5 s beside other packages' tests).
const doTimeout = 60 * time.Second

// Do sends one command with a fresh connection and returns the raw reply
// text (for assertions; not fast): topology.Do's, or the test fails.
func Do(t testing.TB, addr string, args ...string) string {
	t.Helper()
	out, err := topology.Do(addr, doTimeout, args...)
	if err != nil {
		t.Fatalf("%v to %s: %v", args, addr, err)
	}
	return out
}

// InfoField returns one field of INFO section (e.g. "commandstats",
// "cmdstat_exec") as text, or "" if absent.
func InfoField(t testing.TB, addr, section, field string) string {
	t.Helper()
	for _, l := range strings.Split(Do(t, addr, "INFO", section), "\n") {
		l = strings.TrimSpace(l)
		if k, v, ok := strings.Cut(l, ":"); ok && k == field {
			return v
		}
	}
	return ""
}

// CommandCalls returns calls=N from INFO commandstats for a command name
// in lower case (e.g. "exec"), or 0.
func CommandCalls(t testing.TB, addr, name string) int64 {
	t.Helper()
	return CommandStat(t, addr, name, "calls")
}

// CommandStat returns one figure (calls, rejected_calls, failed_calls) of
// INFO commandstats for a command name in lower case, or 0.
func CommandStat(t testing.TB, addr, name, figure string) int64 {
	t.Helper()
	v := InfoField(t, addr, "commandstats", "cmdstat_"+name)
	for _, kv := range strings.Split(v, ",") {
		if k, n, ok := strings.Cut(kv, "="); ok && k == figure {
			x, _ := strconv.ParseInt(n, 10, 64)
			return x
		}
	}
	return 0
}

// Cluster is a running Redis Cluster of masters without replicas.
type Cluster struct {
	Nodes []*Redis
}

// StartCluster starts n redis-server nodes in cluster mode, joins them with
// redis-cli --cluster create and waits until the cluster is ok.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	Integration(t)
	cl := &Cluster{}
	args := []string{"--cluster", "create"}
	for i := 0; i < n; i++ {
		r := StartRedis(t, "--cluster-enabled", "yes", "--cluster-config-file", fmt.Sprintf("nodes-%d.conf", i),
			"--cluster-node-timeout", "5000")
		cl.Nodes = append(cl.Nodes, r)
		args = append(args, r.Addr)
	}
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	out, err := exec.Command("redis-cli", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ok := true
		for _, r := range cl.Nodes {
			if InfoLine(t, r.Addr, "CLUSTER", "INFO", "cluster_state") != "ok" {
				ok = false
			}
		}
		if ok {
			return cl
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("cluster did not become ok")
	return nil
}

// InfoLine runs a command whose reply is "key:value" lines (INFO, CLUSTER
// INFO) and returns the value of key.
func InfoLine(t testing.TB, addr string, args ...string) string {
	t.Helper()
	key := args[len(args)-1]
	for _, l := range strings.Split(Do(t, addr, args[:len(args)-1]...), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), ":"); ok && k == key {
			return v
		}
	}
	return ""
}

// ESRequest sends a JSON request to Elasticsearch, requires a 2xx reply,
// and returns its body.
func ESRequest(t testing.TB, method, url string, body []byte) []byte {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Less(t, res.StatusCode, 300, "%s %s: %s", method, url, b)
	return b
}

// ElasticsearchURL returns the URL of an Elasticsearch 8.19 for the test:
// TAIRBENCH_ES_URL when set (make test starts one and sets it), otherwise
// one started with scripts/elasticsearch.sh on a free port and stopped when
// the test ends.
func ElasticsearchURL(t testing.TB) string {
	t.Helper()
	Integration(t)
	if u := os.Getenv("TAIRBENCH_ES_URL"); u != "" {
		return u
	}
	return startElasticsearch(t, "1g").URL
}

// Elasticsearch is an instance of the test's own.
type Elasticsearch struct {
	URL string
	// PID is the node's process, for tests that pause it (SIGSTOP).
	PID int
}

// StartElasticsearch starts an Elasticsearch 8.19 of the test's own (a
// 512 MB heap, about 10 s), never the shared one: for tests that pause or
// kill it. It is stopped when the test ends.
func StartElasticsearch(t testing.TB) Elasticsearch {
	t.Helper()
	Integration(t)
	return startElasticsearch(t, "512m")
}

func startElasticsearch(t testing.TB, heap string) Elasticsearch {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatalf("elasticsearch: %v", err)
	}
	port := strconv.Itoa(FreePort(t))
	script := filepath.Join(root, "scripts", "elasticsearch.sh")
	cmd := exec.Command("bash", script, "start", port)
	cmd.Env = append(os.Environ(), "ES_HEAP="+heap)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		msg := ""
		if errors.As(err, &ee) {
			msg = string(ee.Stderr)
		}
		t.Fatalf("elasticsearch did not start (%v); set TAIRBENCH_ES_URL or %s=1 to skip:\n%s", err, SkipVar, msg)
	}
	t.Cleanup(func() { _ = exec.Command("bash", script, "stop", port).Run() })
	es := Elasticsearch{URL: strings.TrimSpace(string(out))}
	pid, err := exec.Command("bash", script, "pid", port).Output()
	if err != nil {
		t.Fatalf("elasticsearch on %s: no PID file: %v", port, err)
	}
	if es.PID, err = strconv.Atoi(strings.TrimSpace(string(pid))); err != nil {
		t.Fatalf("elasticsearch on %s: PID %q: %v", port, pid, err)
	}
	return es
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the test")
		}
		dir = parent
	}
}

// PythonJieba returns the folder holding PyPI's jieba (for PYTHONPATH),
// which scripts/install-deps.sh installs under .cache/py.
func PythonJieba(t testing.TB) string {
	t.Helper()
	Integration(t)
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, ".cache", "py")
	if _, err := os.Stat(filepath.Join(dir, "jieba", "__init__.py")); err != nil {
		t.Fatalf("PyPI jieba not found in %s: run 'make test' (scripts/install-deps.sh installs it) or set %s=1 to skip integration tests", dir, SkipVar)
	}
	return dir
}

// RespBenchmark returns the command that runs PyPI's resp-benchmark 0.2.5
// (scripts/install-deps.sh installs it under .cache/respbench) and the
// PYTHONPATH it needs.
func RespBenchmark(t testing.TB) (argv []string, pythonPath string) {
	t.Helper()
	Integration(t)
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, ".cache", "respbench")
	script := filepath.Join(dir, "bin", "resp-benchmark")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("PyPI resp-benchmark not found in %s: run 'make test' (scripts/install-deps.sh installs it) or set %s=1 to skip integration tests", dir, SkipVar)
	}
	return []string{"python3", script}, dir
}

// Chromium returns Debian's chromium (installed by scripts/install-deps.sh),
// for tests of pages a person looks at.
func Chromium(t testing.TB) string {
	t.Helper()
	Integration(t)
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatalf("chromium not found: run 'make test' (scripts/install-deps.sh installs Debian's chromium) or set %s=1 to skip integration tests", SkipVar)
	return ""
}

// NoRaceForAllocs skips an allocation count under the race detector, which
// drops sync.Pool items on purpose, so that pooled buffers (fasthttp's)
// allocate there as they never do in a normal build. make test runs the
// allocation tests again without the race detector (-run Alloc).
func NoRaceForAllocs(t *testing.T) {
	t.Helper()
	if Race {
		t.Skip("allocation counts are checked without the race detector (make test's -run Alloc step)")
	}
}

// RepoPath is path (slash-separated, from the repository's root) as an
// absolute path, wherever the test's package sits in the tree.
func RepoPath(t testing.TB, path string) string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, filepath.FromSlash(path))
}

// StartPrometheus starts Debian's prometheus on a free loopback port with
// a configuration of its own that scrapes each target (host:port) every
// second, waits until it is ready, and stops it by PID when the test ends.
// It returns its URL.
func StartPrometheus(t testing.TB, targets ...string) string {
	t.Helper()
	Integration(t)
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatalf("prometheus not found: run 'make test' (it installs Debian's prometheus) or set %s=1 to skip integration tests", SkipVar)
	}
	dir := t.TempDir()
	quoted := make([]string, len(targets))
	for i, tg := range targets {
		quoted[i] = strconv.Quote(tg)
	}
	cfg := "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: tairbench\n    static_configs:\n      - targets: [" +
		strings.Join(quoted, ", ") + "]\n"
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	port := FreePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start prometheus: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
		_ = logf.Close()
	})
	url := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(url + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
	t.Fatalf("prometheus did not become ready; its log:\n%s", log)
	return ""
}

// Words returns a drawer of random 8-letter lower-case words, seeded: a
// large vocabulary for search tests whose expansion queries must take long.
func Words(seed uint64) func() string {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	return func() string {
		b := make([]byte, 8)
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		return string(b)
	}
}
