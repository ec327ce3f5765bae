// Package topology is `tairbench topology`: local Redis topologies on
// loopback (internal/topology) started, shown and stopped, with the
// commands that target them.
package topology

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/topology"
)

// DefaultDir is where a topology is kept unless --dir says otherwise.
const DefaultDir = "tairbench-topology"

// Options are one topology command: the kind to start (up), its shape,
// and the directory that keeps it.
type Options struct {
	Kind             string
	Dir              string
	Shards, Replicas int
}

// Up starts the topology and prints its processes and how to target it.
func Up(o Options, io harness.IO) error {
	t, err := topology.Up(o.Kind, o.Dir, o.Shards, o.Replicas)
	if err != nil {
		return err
	}
	show(io.Out, t)
	return nil
}

// Show prints the topology kept in o.Dir.
func Show(o Options, io harness.IO) error {
	t, err := load(o.Dir)
	if err != nil {
		return err
	}
	show(io.Out, t)
	return nil
}

// Down stops the topology kept in o.Dir, by PID.
func Down(o Options, io harness.IO) error {
	t, err := load(o.Dir)
	if err != nil {
		return err
	}
	if err := t.Down(); err != nil {
		return err
	}
	fmt.Fprintf(io.Out, "stopped the %s topology of %s (%d processes)\n", t.Kind, t.Dir, len(t.Nodes))
	return nil
}

// load reads the topology kept in dir, or says there is none.
func load(dir string) (*topology.Topology, error) {
	t, err := topology.Load(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s holds no topology (tairbench topology up sentinel|cluster --dir %s)", dir, dir)
	}
	return t, err
}

// show prints each process and a command that targets the topology.
func show(w io.Writer, t *topology.Topology) {
	fmt.Fprintf(w, "%s topology in %s (state: %s; stop it with tairbench topology down --dir %s):\n", t.Kind, t.Dir, topology.StateFile, t.Dir)
	for _, n := range t.Nodes {
		state := "running"
		if !n.Alive() {
			state = "stopped"
		}
		fmt.Fprintf(w, "  %-9s %-21s PID %-8d %s\n", n.Role, n.Addr, n.PID, state)
	}
	switch t.Kind {
	case topology.Sentinel:
		fmt.Fprintf(w, "target the primary: tairbench redis -h %s; the Sentinels name it %s\n", t.Nodes[0].Addr, t.MasterName)
	case topology.Cluster:
		fmt.Fprintf(w, "target the cluster: tairbench redis -h %s --cluster\n", t.Nodes[0].Addr)
	}
}
