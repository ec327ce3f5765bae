package redis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/events"
)

// EventActor carries events out on a RESP target (events.Actor): each
// event on a connection of its own, its completion read from INFO.
type EventActor struct {
	t endpoint.Target
	// Poll is how often a running event's completion is asked for.
	Poll time.Duration
}

// NewEventActor returns the actor for t.
func NewEventActor(t endpoint.Target) *EventActor {
	return &EventActor{t: t, Poll: 10 * time.Millisecond}
}

// dial connects for one event, its reads bounded by timeout.
func (a *EventActor) dial(ctx context.Context, addr string, timeout time.Duration) (*transport.Conn, error) {
	t := a.t
	if addr != "" {
		t.Addr, t.Sentinels, t.MasterName = addr, nil, ""
	}
	t.Timeout = timeout
	return transport.Dial(ctx, t)
}

// info reads one INFO section of addr as fields.
func (a *EventActor) info(ctx context.Context, addr, section string) (map[string]string, error) {
	c, err := a.dial(ctx, addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	s, err := c.DoString("INFO", section)
	if err != nil {
		return nil, err
	}
	return infoFields(s), nil
}

func infoFields(s string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			m[k] = v
		}
	}
	return m
}

// needs names the INFO field that tells each event's completion.
var needs = map[string][2]string{
	"bgsave":       {"persistence", "rdb_bgsave_in_progress"},
	"bgrewriteaof": {"persistence", "aof_rewrite_in_progress"},
	"failover":     {"replication", "role"},
}

// Check refuses an event the target cannot go through.
func (a *EventActor) Check(ctx context.Context, e events.Event) error {
	if n, ok := needs[e.Action]; ok {
		m, err := a.info(ctx, "", n[0])
		if err != nil {
			return err
		}
		if _, ok := m[n[1]]; !ok {
			return fmt.Errorf("the target's INFO %s has no %s: it cannot tell when the event is done", n[0], n[1])
		}
	}
	switch e.Action {
	case "failover":
		_, _, err := a.failoverPlan(ctx)
		return err
	case "reshard":
		_, _, _, _, err := a.reshardPlan(ctx, e)
		return err
	case "add-node":
		return a.checkNewNode(ctx, e.Args[0])
	case "debug-sleep":
		// DEBUG is often not allowed (enable-debug-command): ask with a
		// sleep of nothing.
		o := a.command(ctx, func() {}, 0, "DEBUG", "SLEEP", "0")
		return o.Err
	}
	return nil
}

// Process is the target's process ID (INFO server), when the target
// runs on this machine and not inside this process.
func (a *EventActor) Process(ctx context.Context) (int, error) {
	if a.t.InProcess {
		return 0, errors.New("the embedded server runs inside tairbench: signalling it would stop the load too")
	}
	if network, addr := a.t.Network(); network != "unix" {
		host, _, err := net.SplitHostPort(addr)
		if ip := net.ParseIP(host); err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
			return 0, fmt.Errorf("the target %s is not on this machine (loopback): its process cannot be signalled", a.t.Addr)
		}
	}
	m, err := a.info(ctx, "", "server")
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(m["process_id"])
	if err != nil || pid <= 0 {
		return 0, errors.New("the target's INFO server gives no process_id")
	}
	if pid == os.Getpid() {
		return 0, errors.New("the target runs inside tairbench: signalling it would stop the load too")
	}
	return pid, nil
}

// CommandLine is how to start the target's redis-server again as it runs
// now: INFO server's executable with a configuration file of every
// setting (CONFIG GET *), written beside its data as
// tairbench-restart-PORT.conf, in its folder.
func (a *EventActor) CommandLine(ctx context.Context) ([]string, string, error) {
	m, err := a.info(ctx, "", "server")
	if err != nil {
		return nil, "", err
	}
	exe := m["executable"]
	if exe == "" {
		return nil, "", errors.New("the target's INFO server names no executable to start again")
	}
	if _, err := os.Stat(exe); err != nil {
		// Redis makes a relative argv[0] absolute against its folder,
		// not the PATH it was found on.
		if exe, err = osexec.LookPath(filepath.Base(exe)); err != nil {
			return nil, "", fmt.Errorf("the server's executable %s is not found to start again", m["executable"])
		}
	}
	c, err := a.dial(ctx, "", 5*time.Second)
	if err != nil {
		return nil, "", err
	}
	defer c.Close()
	args, err := c.DoStrings("CONFIG", "GET", "*")
	if err != nil {
		return nil, "", fmt.Errorf("CONFIG GET *: %w", err)
	}
	var conf strings.Builder
	settings := map[string]string{}
	for i := 0; i+1 < len(args); i += 2 {
		k, v := args[i], args[i+1]
		settings[k] = v
		if (k == "replicaof" || k == "slaveof") && v == "" || k == "daemonize" {
			continue // no primary; and it stays in the foreground, reaped by tairbench
		}
		fmt.Fprintf(&conf, "%s %s\n", k, strconv.Quote(v))
	}
	dir := settings["dir"]
	if dir == "" {
		return nil, "", errors.New("the target's CONFIG names no dir to start it in")
	}
	file := filepath.Join(dir, "tairbench-restart-"+settings["port"]+".conf")
	if err := os.WriteFile(file, []byte(conf.String()), 0o600); err != nil {
		return nil, "", fmt.Errorf("restart's configuration: %w", err)
	}
	return []string{exe, file}, dir, nil
}

// Ready returns once the target answers PING (not LOADING), or ctx ends.
func (a *EventActor) Ready(ctx context.Context) error {
	for {
		if c, err := a.dial(ctx, "", time.Second); err == nil {
			_, err = c.DoString("PING")
			c.Close()
			if err == nil {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return events.ErrNotSeen
		case <-time.After(a.Poll):
		}
	}
}

// Do issues e and waits for the target to say it completed.
func (a *EventActor) Do(ctx context.Context, e events.Event, issued func()) events.Outcome {
	start := time.Now()
	o := a.do(ctx, e, issued)
	if o.Err == nil && !o.Completed.IsZero() {
		a.serverSignals(ctx, &o, start)
	}
	return o
}

// serverSignals adds, once an event completed, what the server says of
// it: its latency monitor's spikes since the event started (LATENCY
// LATEST, when latency-monitor-threshold is set) and its replicas' offset
// lag.
func (a *EventActor) serverSignals(ctx context.Context, o *events.Outcome, start time.Time) {
	if o.Signals == nil {
		o.Signals = map[string]string{}
	}
	if m, err := a.info(ctx, "", "replication"); err == nil && m["role"] == "master" {
		top, _ := strconv.ParseInt(m["master_repl_offset"], 10, 64)
		lag := int64(-1)
		for k, v := range m {
			if !strings.HasPrefix(k, "slave") || !strings.Contains(v, "offset=") {
				continue
			}
			for _, f := range strings.Split(v, ",") {
				if off, ok := strings.CutPrefix(f, "offset="); ok {
					n, _ := strconv.ParseInt(off, 10, 64)
					lag = max(lag, top-n)
				}
			}
		}
		if lag >= 0 {
			o.Signals["replica_offset_lag_bytes"] = strconv.FormatInt(lag, 10)
		}
	}
	t := a.t
	t.Timeout = 2 * time.Second
	c, err := transport.NewClient(ctx, t, 1)
	if err != nil {
		return
	}
	defer c.Close()
	rows, err := c.Do(ctx, "LATENCY", "LATEST").Slice()
	if err != nil {
		return
	}
	var spikes []string
	for _, r := range rows {
		// event, the latest spike's time (Unix seconds), its ms, the most ms
		if f, ok := r.([]any); ok && len(f) >= 4 {
			if at, ok := f[1].(int64); ok && at >= start.Unix() {
				spikes = append(spikes, fmt.Sprintf("%v %v ms", f[0], f[2]))
			}
		}
	}
	if len(spikes) > 0 {
		o.Signals["latency_latest"] = strings.Join(spikes, "; ")
	}
}

// do carries the event out.
func (a *EventActor) do(ctx context.Context, e events.Event, issued func()) events.Outcome {
	switch e.Action {
	case "bgsave":
		return a.fork(ctx, issued, "rdb_bgsave_in_progress", "rdb_last_bgsave_status", "BGSAVE")
	case "bgrewriteaof":
		return a.fork(ctx, issued, "aof_rewrite_in_progress", "aof_last_bgrewrite_status", "BGREWRITEAOF")
	case "failover":
		return a.failover(ctx, issued)
	case "reshard":
		return a.reshard(ctx, e, issued)
	case "add-node":
		return a.addNode(ctx, e.Args[0], issued)
	case "client-pause":
		o := a.command(ctx, issued, 0, append([]string{"CLIENT", "PAUSE"}, e.Args...)...)
		if o.Err == nil {
			ms, _ := strconv.ParseInt(e.Args[0], 10, 64)
			o.Completed = o.Completed.Add(time.Duration(ms) * time.Millisecond)
		}
		return o
	case "debug-sleep":
		s, _ := strconv.ParseFloat(e.Args[0], 64)
		return a.command(ctx, issued, time.Duration(s*float64(time.Second)), "DEBUG", "SLEEP", e.Args[0])
	case "config-set":
		return a.command(ctx, issued, 0, "CONFIG", "SET", e.Args[0], e.Args[1])
	}
	issued()
	return events.Outcome{Err: fmt.Errorf("%s is not an event the Redis driver carries out", e.Action)}
}

// command sends one command; it completes with the reply. long is how
// much longer than usual the reply may take (a DEBUG SLEEP's).
func (a *EventActor) command(ctx context.Context, issued func(), long time.Duration, args ...string) events.Outcome {
	c, err := a.dial(ctx, "", long+10*time.Second)
	if err != nil {
		issued()
		return events.Outcome{Err: err}
	}
	defer c.Close()
	issued()
	reply, err := c.DoString(args...)
	if err != nil {
		return events.Outcome{Err: err, Reply: replyText(err)}
	}
	return events.Outcome{Completed: time.Now(), Reply: reply}
}

// replyText is an error reply's message ("" for other errors).
func replyText(err error) string {
	var re *transport.ReplyError
	if errors.As(err, &re) {
		return re.Msg
	}
	return ""
}

// fork issues a command that forks (BGSAVE, BGREWRITEAOF) and waits until
// INFO persistence says it ended; its signals are the fork's time and
// the save's status.
func (a *EventActor) fork(ctx context.Context, issued func(), running, status string, args ...string) events.Outcome {
	o := a.command(ctx, issued, 0, args...)
	if o.Err != nil {
		return o
	}
	o.Completed = time.Time{}
	m, err := a.await(ctx, "", "persistence", func(m map[string]string) bool {
		return m[running] == "0" && m[strings.Replace(running, "in_progress", "scheduled", 1)] != "1"
	})
	if err != nil {
		o.Err = err
		return o
	}
	o.Completed = time.Now()
	o.Signals = map[string]string{status: m[status]}
	for _, k := range []string{"rdb_last_cow_size", "aof_last_cow_size"} {
		if v, ok := m[k]; ok && strings.HasPrefix(status, k[:3]) {
			o.Signals[k] = v
		}
	}
	if st, err := a.info(ctx, "", "stats"); err == nil {
		o.Signals["latest_fork_usec"] = st["latest_fork_usec"]
	}
	if m[status] != "ok" && m[status] != "" {
		o.Err = fmt.Errorf("%s: %s", status, m[status])
	}
	return o
}

// await polls INFO section of addr until done holds, or ctx ends.
func (a *EventActor) await(ctx context.Context, addr, section string, done func(map[string]string) bool) (map[string]string, error) {
	for {
		m, err := a.info(ctx, addr, section)
		if err == nil && done(m) {
			return m, nil
		}
		select {
		case <-ctx.Done():
			return m, events.ErrNotSeen
		case <-time.After(a.Poll):
		}
	}
}

// failoverPlan says where a failover is sent and what it sends: on a
// cluster, CLUSTER FAILOVER to a replica of the target's node; otherwise
// FAILOVER to the target, a primary with a replica.
func (a *EventActor) failoverPlan(ctx context.Context) (addr string, args []string, err error) {
	m, err := a.info(ctx, "", "replication")
	if err != nil {
		return "", nil, err
	}
	if m["role"] != "master" {
		return "", nil, fmt.Errorf("the target is a %s, not a primary: it has nothing to fail over", m["role"])
	}
	if !a.t.Cluster {
		if n, _ := strconv.Atoi(m["connected_slaves"]); n == 0 {
			return "", nil, errors.New("the target has no replica to fail over to")
		}
		if len(a.t.Sentinels) > 0 {
			return a.t.Sentinels[0], []string{"SENTINEL", "FAILOVER", a.t.MasterName}, nil
		}
		return "", []string{"FAILOVER"}, nil
	}
	replica, err := a.clusterReplica(ctx)
	if err != nil {
		return "", nil, err
	}
	return replica, []string{"CLUSTER", "FAILOVER"}, nil
}

// clusterReplica is the address of a replica of the target's cluster node.
func (a *EventActor) clusterReplica(ctx context.Context) (string, error) {
	c, err := a.dial(ctx, "", 5*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	nodes, err := c.DoString("CLUSTER", "NODES")
	if err != nil {
		return "", err
	}
	var self string
	for _, line := range strings.Split(nodes, "\n") {
		if f := strings.Fields(line); len(f) > 2 && strings.Contains(f[2], "myself") {
			self = f[0]
		}
	}
	for _, line := range strings.Split(nodes, "\n") {
		f := strings.Fields(line)
		if len(f) > 3 && f[3] == self && strings.Contains(f[2], "slave") && !strings.Contains(f[2], "fail") {
			addr, _, _ := strings.Cut(f[1], "@")
			return addr, nil
		}
	}
	return "", errors.New("the target's cluster node has no replica to fail over to")
}

// failover hands the primary over and waits until the promoted replica
// says it is a primary (and, off a cluster, the old primary follows it).
func (a *EventActor) failover(ctx context.Context, issued func()) events.Outcome {
	addr, args, err := a.failoverPlan(ctx)
	if err != nil {
		issued()
		return events.Outcome{Err: err}
	}
	if len(a.t.Sentinels) > 0 {
		return a.sentinelFailover(ctx, issued, args)
	}
	c, err := a.dial(ctx, addr, 10*time.Second)
	if err != nil {
		issued()
		return events.Outcome{Err: err}
	}
	issued()
	reply, err := c.DoString(args...)
	c.Close()
	o := events.Outcome{Reply: reply}
	if err != nil {
		o.Err, o.Reply = err, replyText(err)
		return o
	}
	var m map[string]string
	if addr != "" {
		m, err = a.await(ctx, addr, "replication", func(m map[string]string) bool { return m["role"] == "master" })
		o.Signals = map[string]string{"new_primary": addr}
	} else {
		m, err = a.await(ctx, "", "replication", func(m map[string]string) bool {
			return m["role"] == "slave" && m["master_link_status"] == "up"
		})
		o.Signals = map[string]string{"new_primary": net.JoinHostPort(m["master_host"], m["master_port"])}
	}
	if err != nil {
		o.Err = err
		return o
	}
	o.Completed = time.Now()
	return o
}

// sentinelFailover asks the Sentinels, in order, for a failover and waits
// until they name another primary and it says it is one.
func (a *EventActor) sentinelFailover(ctx context.Context, issued func(), args []string) events.Outcome {
	old, err := transport.ResolveMaster(ctx, a.t)
	if err != nil {
		issued()
		return events.Outcome{Err: err}
	}
	issued()
	var o events.Outcome
	limit := 3 * time.Minute // Sentinel's own default failover-timeout
	for _, s := range a.t.Sentinels {
		st := endpoint.Target{Addr: s, Timeout: 5 * time.Second, Protocol: 2}
		c, err := transport.Dial(ctx, st)
		if err != nil {
			o.Err = err
			continue
		}
		if fields, err := c.DoStrings("SENTINEL", "MASTER", a.t.MasterName); err == nil {
			for i := 0; i+1 < len(fields); i += 2 {
				if ms, err := strconv.Atoi(fields[i+1]); fields[i] == "failover-timeout" && err == nil {
					limit = time.Duration(ms) * time.Millisecond
				}
			}
		}
		o.Reply, o.Err = c.DoString(args...)
		c.Close()
		if o.Err == nil {
			break
		}
		o.Reply = replyText(o.Err)
	}
	if o.Err != nil {
		return o
	}
	o.Signals = map[string]string{"old_primary": old}
	// Past the Sentinels' failover-timeout they have given the failover
	// up (-failover-abort-…): a later switch is not this event's.
	deadline := time.Now().Add(limit + time.Second)
	for {
		if time.Now().After(deadline) {
			o.Err = fmt.Errorf("the Sentinels named no new primary within their failover-timeout (%s): they gave it up", limit)
			return o
		}
		if addr, err := transport.ResolveMaster(ctx, a.t); err == nil && addr != old {
			if m, err := a.info(ctx, addr, "replication"); err == nil && m["role"] == "master" {
				o.Completed = time.Now()
				o.Signals["new_primary"] = addr
				return o
			}
		}
		select {
		case <-ctx.Done():
			o.Err = events.ErrNotSeen
			return o
		case <-time.After(a.Poll):
		}
	}
}
