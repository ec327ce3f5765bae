package topology

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// upSentinel starts a primary, its replica and three Sentinels that
// monitor it (quorum 2), and waits until the replica is in sync and every
// Sentinel knows both.
func (t *Topology) upSentinel() error {
	t.MasterName = MasterName
	ports := make([]int, 5)
	for i := range ports {
		p, err := freePort()
		if err != nil {
			return err
		}
		ports[i] = p
	}
	if err := t.start("primary", "primary", ports[0], serverArgs(ports[0], "primary")...); err != nil {
		return err
	}
	primary := "127.0.0.1:" + strconv.Itoa(ports[0])
	if err := t.start("replica", "replica", ports[1], serverArgs(ports[1], "replica", "--replicaof", "127.0.0.1", strconv.Itoa(ports[0]))...); err != nil {
		return err
	}
	for i, port := range ports[2:] {
		name := fmt.Sprintf("sentinel-%d", i+1)
		conf := filepath.Join(t.Dir, name+".conf")
		text := fmt.Sprintf("port %d\nbind 127.0.0.1\nsentinel monitor %s 127.0.0.1 %d 2\nsentinel down-after-milliseconds %s 2000\nsentinel failover-timeout %s 10000\n",
			port, MasterName, ports[0], MasterName, MasterName)
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			return err
		}
		if err := t.start("sentinel", name, port, conf, "--sentinel"); err != nil {
			return err
		}
	}
	return waitFor(20*time.Second, "the replica's link and the Sentinels' view", func() bool {
		// Online: the first sync is done (a replica waiting for it is
		// connected, and WAIT gets nothing from it).
		if info, _ := Do(primary, time.Second, "INFO", "replication"); !strings.Contains(info, "state=online") {
			return false
		}
		for _, n := range t.Nodes[2:] {
			if r, _ := Do(n.Addr, time.Second, "SENTINEL", "REPLICAS", MasterName); !strings.Contains(r, "127.0.0.1") {
				return false
			}
		}
		return true
	})
}

// upCluster starts shards×(1+replicas) cluster nodes, joins them with
// redis-cli --cluster create, and waits until every node says ok.
func (t *Topology) upCluster(shards, replicas int) error {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		return fmt.Errorf("redis-cli not found: install Debian's redis-tools (make test does)")
	}
	args := []string{"--cluster", "create"}
	for i := range shards * (1 + replicas) {
		port, err := freePort()
		if err != nil {
			return err
		}
		name := fmt.Sprintf("node-%d", i+1)
		if err := t.start("node", name, port, serverArgs(port, name, "--cluster-enabled", "yes",
			"--cluster-config-file", name+".nodes.conf", "--cluster-node-timeout", "5000")...); err != nil {
			return err
		}
		args = append(args, t.Nodes[len(t.Nodes)-1].Addr)
	}
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("redis-cli --cluster create: %v: %s", err, strings.TrimSpace(string(out)))
	}
	if err := waitFor(30*time.Second, "cluster_state:ok on every node", func() bool {
		for _, n := range t.Nodes {
			if info, _ := Do(n.Addr, time.Second, "CLUSTER", "INFO"); !strings.Contains(info, "cluster_state:ok") {
				return false
			}
		}
		return true
	}); err != nil {
		return err
	}
	for i, n := range t.Nodes { // each node's role, as the cluster made it
		if info, _ := Do(n.Addr, time.Second, "INFO", "replication"); strings.Contains(info, "role:slave") {
			t.Nodes[i].Role = "replica"
		} else {
			t.Nodes[i].Role = "master"
		}
	}
	return nil
}

// waitFor polls ok until it holds, or says what did not come in time.
func waitFor(d time.Duration, what string, ok func() bool) error {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if ok() {
			return nil
		}
	}
	return fmt.Errorf("%s did not come within %s", what, d)
}
