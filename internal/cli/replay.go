package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/flagval"
	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	replayfront "github.com/tairbench/tairbench/internal/frontend/replay"
)

type replayOptions struct {
	own         common.Options
	target      targetFlags
	out         outputFlags
	shard       shardFlags
	o           replayfront.Options
	maxMemory   string
	abortOnFail bool
	redis       string
	slo         flagval.Capacity
}

func newReplayCmd(a *app) *cobra.Command {
	ro := &replayOptions{own: common.Defaults()}
	cmd := &cobra.Command{
		Use:   "replay TRACE",
		Short: "Send a captured trace again: each connection's commands in order, at their captured times divided by --speed",
		Long: `Replays a trace made by tairbench capture. Each captured connection gets a
connection of its own and sends its commands in their order, each at its
captured time divided by --speed (open loop: latency counts from that time).
Before anything is sent the whole trace is read and the target says, through
COMMAND INFO, where each command's keys are: --key-prefix puts a prefix before
every key, so that a replay does not touch live keys, and --only reads or
--only writes filters. Commands that would stop the replay or change its
connections (MONITOR, SUBSCRIBE, SHUTDOWN, QUIT, AUTH, HELLO, ...) are not sent,
and are counted with the reason.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error { return runReplay(c.Context(), args[0], ro, a) },
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	ro.target.registerAddr(fs)
	o := &ro.o
	fs.Float64Var(&o.Speed, "speed", 1, "divide the captured gaps between commands by this (2: twice the captured rate)")
	fs.StringVar(&o.KeyPrefix, "key-prefix", "", "put this before every key (the target's COMMAND INFO says where keys are)")
	fs.StringVar(&o.Only, "only", "", "send only the reads or only the writes (reads|writes; SELECT is kept)")
	fs.BoolVar(&o.SkipUnknown, "skip-unknown", false, "leave out, counted, the commands the target does not know (default: refuse the replay)")
	fs.BoolVar(&o.Preload, "preload", false, "before the replay, write every key the trace reads and never writes (timed apart)")
	fs.IntVar(&o.PreloadSize, "preload-size", 0, "--preload's value size in bytes (0: the trace's median SET value, else 64)")
	fs.StringVar(&ro.maxMemory, "max-memory", "2GiB", "refuse a replay whose commands take more memory than this")
	fs.Int64Var(&o.MaxErrors, "max-errors", 0, "stop after this many errors (0: never)")
	fs.BoolVar(&o.AllowErrors, "allow-errors", false, "exit 0 even when most commands failed")
	fs.BoolVar(&ro.abortOnFail, "abort-on-fail", false, "stop the replay at the first second a --threshold on latency or errors already fails")
	fs.StringVar(&o.Translate, "translate", "", "replay the trace as it was and translated, side by side: bitmaps=tairroaring (Redis bitmap commands as TairRoaring's on the target)")
	fs.StringVar(&ro.redis, "redis", "", "with --translate: HOST:PORT of the Redis server the original bitmap commands go to (default: the target; same login)")
	ro.slo.Register(fs)
	ro.shard.register(fs)
	ro.out.registerFiles(fs)
	ro.own.Register(fs, "")
	return cmd
}

func runReplay(ctx context.Context, path string, ro *replayOptions, a *app) error {
	o := ro.o
	o.Options, o.Trace, o.AbortOnFail = ro.own, path, ro.abortOnFail
	var err error
	if o.Shard, err = harness.ParseShard(ro.shard.shard, ro.shard.startAt); err != nil {
		return err
	}
	if o.Target, err = ro.own.Target(ro.target.Options).Build(); err != nil {
		return err
	}
	if ro.redis != "" {
		if o.Translate == "" {
			return errors.New("--redis names where --translate sends the original commands: give --translate too")
		}
		host, port, err := net.SplitHostPort(ro.redis)
		p, perr := strconv.Atoi(port)
		if err != nil || perr != nil {
			return fmt.Errorf("--redis %q: want HOST:PORT", ro.redis)
		}
		to := ro.target.Options
		to.Host, to.Port, to.Timeout = host, p, ro.own.Timeout
		tg, err := to.Build()
		if err != nil {
			return fmt.Errorf("--redis: %w", err)
		}
		o.Redis = &tg
	}
	if o.MaxMemory, err = flagval.ParseBytes(ro.maxMemory); err != nil {
		return fmt.Errorf("--max-memory %w", err)
	}
	if o.Out, err = ro.out.Parse(); err != nil {
		return err
	}
	if o.SLO, err = ro.slo.Optional(); err != nil {
		return err
	}
	o.SLOStartGiven = ro.slo.StartGiven()
	_, err = replayfront.Run(ctx, o, a.io())
	return err
}
