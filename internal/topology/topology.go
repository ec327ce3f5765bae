// Package topology starts and stops local Redis topologies on loopback
// for laptops and tests: a primary with a replica and three Sentinels, or
// a Redis Cluster of shards with replicas, from Debian's redis-server (a
// Sentinel is redis-server --sentinel) and redis-cli --cluster create.
// Each process is a session of its own, so it outlives the command that
// started it; the topology is kept in a state file, and stopped by PID.
package topology

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Kinds of topology.
const (
	Sentinel = "sentinel"
	Cluster  = "cluster"
)

// MasterName is the name the Sentinels monitor the primary under.
const MasterName = "mymaster"

// StateFile is the topology's state, in its directory.
const StateFile = "topology.json"

// Node is one process of a topology.
type Node struct {
	// Role is "primary", "replica", "sentinel", or a cluster node's
	// "master"/"replica".
	Role string `json:"role"`
	Addr string `json:"addr"`
	Port int    `json:"port"`
	PID  int    `json:"pid"`
}

// Topology is what Up started.
type Topology struct {
	Kind  string `json:"kind"`
	Dir   string `json:"dir"`
	Nodes []Node `json:"nodes"`
	// MasterName is the Sentinels' name for the primary (sentinel only).
	MasterName string `json:"master_name,omitempty"`

	procs map[int]*os.Process // started by this process: reaped by Down
}

// Up starts a topology of kind in dir (made if missing; refused when it
// holds a running topology): shards and replicas shape a cluster. On a
// failure, what was started is stopped.
func Up(kind, dir string, shards, replicas int) (*Topology, error) {
	if t, err := Load(dir); err == nil && t.Running() {
		return nil, fmt.Errorf("%s holds a running %s topology: tairbench topology down --dir %s first", dir, t.Kind, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	t := &Topology{Kind: kind, Dir: abs, procs: map[int]*os.Process{}}
	// A topology starts empty: an earlier one's cluster configurations
	// and snapshots in the folder would make its nodes know old ones.
	for _, pattern := range []string{"*.nodes.conf", "*.rdb"} {
		old, _ := filepath.Glob(filepath.Join(abs, pattern))
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				return nil, fmt.Errorf("clearing %s: %w", f, err)
			}
		}
	}
	switch kind {
	case Sentinel:
		err = t.upSentinel()
	case Cluster:
		if shards < 1 || replicas < 0 {
			return nil, errors.New("--shards must be at least 1 and --replicas not negative")
		}
		err = t.upCluster(shards, replicas)
	default:
		return nil, fmt.Errorf("topology %q: want sentinel or cluster", kind)
	}
	if err == nil {
		err = t.save()
	}
	if err != nil {
		_ = t.Down()
		return nil, err
	}
	return t, nil
}

// start runs redis-server with args as a session of its own, logging to
// name.log in the topology's directory, and waits for it to answer PING.
func (t *Topology) start(role, name string, port int, args ...string) error {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return errors.New("redis-server not found: install Debian's redis-server (make test does)")
	}
	log, err := os.Create(filepath.Join(t.Dir, name+".log"))
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = t.Dir, log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	t.Nodes = append(t.Nodes, Node{Role: role, Addr: addr, Port: port, PID: cmd.Process.Pid})
	t.procs[cmd.Process.Pid] = cmd.Process
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if reply, err := Do(addr, time.Second, "PING"); err == nil && reply == "PONG" {
			return nil
		}
	}
	return fmt.Errorf("%s on %s did not answer PING within 10 s (see %s.log in %s)", name, addr, name, t.Dir)
}

// serverArgs are a data node's: loopback, no persistence, its own files;
// a replica's sync starts at once (no diskless delay).
func serverArgs(port int, name string, extra ...string) []string {
	return append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dbfilename", name + ".rdb", "--daemonize", "no", "--repl-diskless-sync-delay", "0"}, extra...)
}

// freePort is a loopback port nothing listens on (and, for a cluster
// node, its bus port 10000 above too).
func freePort() (int, error) {
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if port+10000 > 65535 {
			continue
		}
		if bus, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000)); err == nil {
			bus.Close()
			return port, nil
		}
	}
	return 0, errors.New("no free loopback port")
}

// Do sends one command on a connection of its own, waiting at most
// timeout, and returns its reply as text: a status, error or integer as
// it reads (an error's "ERR …" too), a bulk's bytes or "(nil)", an
// array's elements in brackets.
func Do(addr string, timeout time.Duration, args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, min(timeout, 2*time.Second))
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return "", err
	}
	return readReply(bufio.NewReader(c))
}

// readReply reads one reply as Do gives it.
func readReply(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("empty reply")
	}
	switch line[0] {
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "(nil)", nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		parts := make([]string, 0, max(n, 0))
		for range max(n, 0) {
			p, err := readReply(r)
			if err != nil {
				return "", err
			}
			parts = append(parts, p)
		}
		return "[" + strings.Join(parts, " ") + "]", nil
	}
	return line[1:], nil
}

// save writes the state file.
func (t *Topology) save() error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(t.Dir, StateFile), append(b, '\n'), 0o644)
}

// Load reads the topology kept in dir.
func Load(dir string) (*Topology, error) {
	b, err := os.ReadFile(filepath.Join(dir, StateFile))
	if err != nil {
		return nil, err
	}
	var t Topology
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, StateFile), err)
	}
	return &t, nil
}

// Alive says whether the node's process runs.
func (n Node) Alive() bool { return alive(n.PID) }

// Alive says whether a process of that PID exists and is not a zombie.
func Alive(pid int) bool { return alive(pid) }

// Addrs are the addresses of the topology's processes of a role
// ("sentinel", "primary", ...), in the order they started.
func (t *Topology) Addrs(role string) []string {
	var out []string
	for _, n := range t.Nodes {
		if n.Role == role {
			out = append(out, n.Addr)
		}
	}
	return out
}

// Running says whether any of the topology's processes is alive.
func (t *Topology) Running() bool {
	for _, n := range t.Nodes {
		if alive(n.PID) {
			return true
		}
	}
	return false
}

// alive says whether a process of that PID exists (and is not a zombie
// this process should reap).
func alive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(fields) == 0 || fields[0] != "Z"
}

// Down stops every process by PID (SIGTERM, then SIGKILL after 5 s) and
// removes the state file.
func (t *Topology) Down() error {
	for _, n := range t.Nodes {
		if alive(n.PID) {
			_ = syscall.Kill(n.PID, syscall.SIGTERM)
		}
	}
	var errs []error
	for _, n := range t.Nodes {
		deadline := time.Now().Add(5 * time.Second)
		for alive(n.PID) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(n.PID) {
			_ = syscall.Kill(n.PID, syscall.SIGKILL)
		}
		if p := t.procs[n.PID]; p != nil {
			_, _ = p.Wait()
		}
		if alive(n.PID) {
			errs = append(errs, fmt.Errorf("%s (PID %d) did not stop", n.Addr, n.PID))
		}
	}
	if err := os.Remove(filepath.Join(t.Dir, StateFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
