package cli

import (
	"github.com/spf13/cobra"

	topofront "github.com/tairbench/tairbench/internal/frontend/topology"
)

func newTopologyCmd(a *app) *cobra.Command {
	var o topofront.Options
	cmd := &cobra.Command{
		Use:   "topology",
		Short: "Start and stop local Redis topologies on loopback: a primary, a replica and Sentinels, or a cluster",
		Long: `Starts Debian's redis-server on loopback as a topology that outlives the
command (each process a session of its own), keeps it in a state file in --dir,
and stops it by PID. For laptops and tests: the failover, fork and resharding
runs of tairbench target these.`,
		Args: cobra.NoArgs,
	}
	cmd.PersistentFlags().StringVar(&o.Dir, "dir", topofront.DefaultDir, "the directory that keeps the topology's state, logs and files")
	up := &cobra.Command{
		Use:   "up sentinel|cluster",
		Short: "Start a topology: sentinel (a primary, a replica, three Sentinels) or cluster (--shards, --replicas)",
		Long: `sentinel: a primary, its replica and three Sentinels that monitor it (quorum 2).
cluster: --shards masters with --replicas replicas each, joined by redis-cli --cluster create.
It prints each process (role, address, PID) and a command that targets it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			o.Kind = args[0]
			return topofront.Up(o, a.io())
		},
	}
	up.Flags().IntVar(&o.Shards, "shards", 3, "cluster: masters")
	up.Flags().IntVar(&o.Replicas, "replicas", 1, "cluster: replicas of each master")
	down := &cobra.Command{
		Use:   "down",
		Short: "Stop the topology kept in --dir, by PID",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return topofront.Down(o, a.io()) },
	}
	show := &cobra.Command{
		Use:   "show",
		Short: "Print the topology kept in --dir: each process, and whether it runs",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return topofront.Show(o, a.io()) },
	}
	cmd.AddCommand(up, down, show)
	return cmd
}
