package redis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
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
		t.Addr = addr
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

// Do issues e and waits for the target to say it completed.
func (a *EventActor) Do(ctx context.Context, e events.Event, issued func()) events.Outcome {
	switch e.Action {
	case "bgsave":
		return a.fork(ctx, issued, "rdb_bgsave_in_progress", "rdb_last_bgsave_status", "BGSAVE")
	case "bgrewriteaof":
		return a.fork(ctx, issued, "aof_rewrite_in_progress", "aof_last_bgrewrite_status", "BGREWRITEAOF")
	case "failover":
		return a.failover(ctx, issued)
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
