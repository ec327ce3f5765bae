package topology_test

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/internal/topology"
)

// TestSentinel: a primary, its replica and three Sentinels that know
// them; down stops every process by PID and forgets the topology.
func TestSentinel(t *testing.T) {
	testenv.Integration(t)
	dir := t.TempDir()
	top, err := topology.Up(topology.Sentinel, dir, 0, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = top.Down() })
	require.Len(t, top.Nodes, 5)
	primary := top.Nodes[0]
	assert.Equal(t, "primary", primary.Role)
	for _, n := range top.Nodes[2:] {
		got, err := topology.Do(n.Addr, time.Second, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", topology.MasterName)
		require.NoError(t, err)
		assert.Equal(t, "[127.0.0.1 "+strconv.Itoa(primary.Port)+"]", got)
	}
	_, err = topology.Up(topology.Sentinel, dir, 0, 0)
	assert.ErrorContains(t, err, "holds a running sentinel topology")

	loaded, err := topology.Load(dir) // as another process would
	require.NoError(t, err)
	require.NoError(t, loaded.Down())
	require.NoError(t, top.Down()) // reaps what this process started
	for _, n := range top.Nodes {
		assert.False(t, n.Alive(), "%s stopped", n.Addr)
		_, err := net.Dial("tcp", n.Addr)
		assert.Error(t, err, "nothing listens on %s", n.Addr)
	}
	_, err = topology.Load(dir)
	assert.Error(t, err, "the state file is gone")
}

// TestCluster: three shards with a replica each, ok on every node.
func TestCluster(t *testing.T) {
	testenv.Integration(t)
	top, err := topology.Up(topology.Cluster, t.TempDir(), 3, 1)
	require.NoError(t, err)
	t.Cleanup(func() { _ = top.Down() })
	require.Len(t, top.Nodes, 6)
	roles := map[string]int{}
	for _, n := range top.Nodes {
		roles[n.Role]++
		info, err := topology.Do(n.Addr, time.Second, "CLUSTER", "INFO")
		require.NoError(t, err)
		assert.True(t, strings.Contains(info, "cluster_state:ok"), n.Addr)
	}
	assert.Equal(t, map[string]int{"master": 3, "replica": 3}, roles)
	require.NoError(t, top.Down())
	assert.False(t, top.Running())
}

// TestRefusals: what cannot be started is refused before anything is.
func TestRefusals(t *testing.T) {
	_, err := topology.Up("ring", t.TempDir(), 0, 0)
	assert.EqualError(t, err, `topology "ring": want sentinel or cluster`)
	_, err = topology.Up(topology.Cluster, t.TempDir(), 0, 1)
	assert.EqualError(t, err, "--shards must be at least 1 and --replicas not negative")
}

// TestUpStartsEmpty: a cluster brought up in the folder of an earlier one
// does not load its nodes' configurations.
func TestUpStartsEmpty(t *testing.T) {
	testenv.Integration(t)
	dir := t.TempDir()
	for range 2 {
		topo, err := topology.Up(topology.Cluster, dir, 3, 0)
		require.NoError(t, err)
		require.NoError(t, topo.Down())
	}
}
