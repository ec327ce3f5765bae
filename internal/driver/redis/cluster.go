package redis

import (
	"context"
	"errors"
	"fmt"

	goredis "github.com/redis/go-redis/v9"

	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/target"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

// clusterWorker routes each command to the node owning its key through
// go-redis's cluster client. It allocates per request; cluster runs measure
// the cluster, not this client's last microsecond.
type clusterWorker struct {
	f    *Factory
	gens []*cmdtmpl.Gen
	pick *picker
	op   int
	cl   *goredis.ClusterClient
	cmds [][]any
	buf  []byte
	args [][]byte
}

func clusterOptions(ctx context.Context, f *Factory) (*goredis.ClusterOptions, error) {
	t, err := f.resolvedTarget(ctx)
	if err != nil {
		return nil, err
	}
	return clusterOptionsFor(t)
}

// NewClusterClient returns a go-redis cluster client of one connection per
// node for t (already resolved with ResolveLogin), checked with a PING.
func NewClusterClient(ctx context.Context, t target.Target) (*goredis.ClusterClient, error) {
	o, err := clusterOptionsFor(t)
	if err != nil {
		return nil, err
	}
	cl := goredis.NewClusterClient(o)
	if err := cl.Ping(ctx).Err(); err != nil {
		cl.Close()
		return nil, fmt.Errorf("cluster %v: %w", o.Addrs, err)
	}
	return cl, nil
}

func clusterOptionsFor(t target.Target) (*goredis.ClusterOptions, error) {
	l := t.Login()
	o := &goredis.ClusterOptions{
		Addrs:        t.ClusterAddrs,
		Username:     l.User,
		Password:     l.Password,
		Protocol:     2,
		PoolSize:     1,
		MinIdleConns: 1,
		MaxRetries:   -1,
		ReadTimeout:  t.Timeout,
		WriteTimeout: t.Timeout,
		DialTimeout:  t.Timeout,
	}
	if len(o.Addrs) == 0 {
		o.Addrs = []string{t.Addr}
	}
	if t.Protocol == 3 {
		o.Protocol = 3
	}
	if t.TLS != nil {
		cfg, err := t.TLS.Config(o.Addrs[0])
		if err != nil {
			return nil, err
		}
		o.TLSConfig = cfg
	}
	return o, nil
}

func newClusterWorker(ctx context.Context, f *Factory, gens []*cmdtmpl.Gen, pick *picker) (*clusterWorker, error) {
	o, err := clusterOptions(ctx, f)
	if err != nil {
		return nil, err
	}
	cl := goredis.NewClusterClient(o)
	if err := cl.Ping(ctx).Err(); err != nil {
		cl.Close()
		return nil, fmt.Errorf("cluster %v: %w", o.Addrs, err)
	}
	return &clusterWorker{f: f, gens: gens, pick: pick, cl: cl}, nil
}

func (w *clusterWorker) Prepare() {
	n := w.f.Workload.OpsPerRequest()
	w.cmds = w.cmds[:0]
	w.op = w.pick.pick()
	for i := 0; i < n; i++ {
		w.buf, w.args = w.gens[w.op].AppendArgs(nil, w.args)
		cmd := make([]any, len(w.args))
		for j, a := range w.args {
			cmd[j] = a
		}
		w.cmds = append(w.cmds, cmd)
	}
}

func (w *clusterWorker) Exec(ctx context.Context, s *engine.Step) error {
	s.Op = w.op
	var results []goredis.Cmder
	var err error
	switch w.f.Workload.Mode {
	case Single:
		cmd := w.cl.Do(ctx, w.cmds[0]...)
		results, err = []goredis.Cmder{cmd}, cmd.Err()
	case Pipeline:
		results, err = w.cl.Pipelined(ctx, func(p goredis.Pipeliner) error {
			for _, c := range w.cmds {
				p.Do(ctx, c...)
			}
			return nil
		})
	case Batch:
		results, err = w.cl.TxPipelined(ctx, func(p goredis.Pipeliner) error {
			for _, c := range w.cmds {
				p.Do(ctx, c...)
			}
			return nil
		})
	}
	if err != nil && !isReplyErr(err) && !errors.Is(err, goredis.Nil) { // a nil reply is a miss, not a failure
		return err
	}
	for _, r := range results {
		s.Ops++
		miss, replyErr, _ := Outcome(r)
		if miss {
			s.Misses++
		}
		if replyErr != nil {
			s.Failed++
			if s.Err == nil {
				s.Err = []byte(replyErr.Error())
			}
			if w.f.Workload.Mode == Batch && isExecAbort(replyErr) {
				s.Aborted = true
			}
		}
	}
	return nil
}

// Outcome classifies a go-redis command's result: a miss (a nil reply or
// an empty array), an error reply from the server, or a failure of the
// connection (lost: the command's fate is unknown).
func Outcome(c goredis.Cmder) (miss bool, reply, lost error) {
	err := c.Err()
	switch {
	case errors.Is(err, goredis.Nil):
		return true, nil, nil
	case isReplyErr(err):
		return false, err, nil
	case err != nil:
		return false, nil, err
	}
	if cmd, ok := c.(*goredis.Cmd); ok {
		if v, ok := cmd.Val().([]any); ok && len(v) == 0 {
			return true, nil, nil
		}
	}
	return false, nil, nil
}

func isReplyErr(err error) bool {
	if errors.Is(err, goredis.Nil) {
		return false
	}
	var re goredis.Error
	return errors.As(err, &re)
}

func isExecAbort(err error) bool {
	var re goredis.Error
	return errors.As(err, &re) && len(re.Error()) >= 9 && re.Error()[:9] == "EXECABORT"
}

func (w *clusterWorker) Close() error { return w.cl.Close() }
