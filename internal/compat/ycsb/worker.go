package ycsb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	goredis "github.com/redis/go-redis/v9"

	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/runner"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/internal/target"
	"github.com/tairbench/tairbench/pkg/resp"
	"github.com/tairbench/tairbench/pkg/result"
)

// Factory creates YCSB workers (engine.Factory): one connection each, the
// key counters shared.
type Factory struct {
	Target   target.Target
	Workload *Workload
	Load     bool
	// Ops are the operation types of the run, as Step.Op indexes them.
	Ops []string

	insert *counter // load: the key sequence; run: new keys
	// latest is the latest distribution's zipfian, its zeta computed once
	// (it takes one power per record); each worker copies it.
	latestOnce sync.Once
	latest     *zipfian
	// loginOnce resolves the cluster's login form once.
	loginOnce sync.Once
	login     target.Target
	loginErr  error
	cum       []float64
	opIndex   []int
	rangeArg  []string
}

// NewFactory prepares the shared key counters and the operation mix.
func NewFactory(t target.Target, w *Workload, load bool) *Factory {
	f := &Factory{Target: t, Workload: w, Load: load, rangeArg: []string{"0", "-1"}}
	if r := strings.Fields(w.Range); len(r) == 2 {
		f.rangeArg = r
	}
	if load {
		f.Ops = []string{"INSERT"}
		f.insert = newCounter(w.InsertStart)
		return f
	}
	f.insert = newCounter(w.InsertStart + w.InsertCount)
	var sum float64
	for i, name := range Operations {
		if p := w.Proportions[name]; p > 0 {
			sum += p
			f.Ops = append(f.Ops, name)
			f.cum = append(f.cum, sum)
			f.opIndex = append(f.opIndex, i)
		}
	}
	return f
}

// OpNames are the operation types with a share of the run.
func (f *Factory) OpNames() []string { return f.Ops }

// NewWorker connects one worker: a connection, or with redis.cluster a
// cluster client that routes each key to its node.
func (f *Factory) NewWorker(ctx context.Context, id int, seed uint64) (engine.Worker, error) {
	w := &worker{f: f, ctx: ctx, rng: rand.New(rand.NewPCG(seed, 0x79637362))}
	if f.Target.Cluster {
		f.loginOnce.Do(func() { f.login, f.loginErr = redis.ResolveLogin(ctx, f.Target) })
		if f.loginErr != nil {
			return nil, f.loginErr
		}
		cl, err := redis.NewClusterClient(ctx, f.login)
		if err != nil {
			return nil, err
		}
		w.cl = cl
	} else {
		c, err := redis.Dial(ctx, f.Target)
		if err != nil {
			return nil, err
		}
		w.conn = c
	}
	wl := f.Workload
	lo, hi := wl.InsertStart, wl.InsertStart+wl.InsertCount-1
	switch wl.RequestDist {
	case "uniform":
		w.choose = uniformChooser{lo, hi}
	case "zipfian":
		expected := int64(float64(wl.OperationCount) * wl.Proportions["INSERT"] * 2)
		w.choose = newScrambled(lo, hi+expected)
	case "hotspot":
		w.choose = hotspotChooser{lo: lo, hi: hi, hotFrac: wl.HotData, hotOpFrac: wl.HotOps}
	case "latest":
		f.latestOnce.Do(func() { f.latest = newLatest(f.insert).z })
		z := *f.latest
		w.choose = &latestChooser{c: f.insert, z: &z}
	}
	w.values = make([]byte, 4096+wl.FieldLength)
	for i := range w.values {
		w.values[i] = byte(' ' + w.rng.IntN(64)) // YCSB's RandomByteIterator alphabet
	}
	return w, nil
}

type worker struct {
	f    *Factory
	conn *redis.Conn
	cl   *goredis.ClusterClient // with redis.cluster
	// readCmd and writeCmd are the prepared commands as arguments (the
	// cluster client's form).
	readCmd, writeCmd []any
	ctx               context.Context
	rng               *rand.Rand
	choose            chooser
	// lengths draws zipfian field lengths.
	lengths *zipfian
	values  []byte
	rep     resp.Reply

	op      int   // index into f.Ops
	keynum  int64 // the key of the prepared request
	read    []byte
	write   []byte
	args    []string
	inserts bool
}

// value returns a field value of the workload's length distribution:
// constant, uniform over 1 … fieldlength, or zipfian over it (short
// values most often), as YCSB's CoreWorkload draws them.
func (w *worker) value() string {
	n := w.f.Workload.FieldLength
	switch {
	case n <= 1:
	case w.f.Workload.FieldLengthDist == "uniform":
		n = 1 + w.rng.IntN(n)
	case w.f.Workload.FieldLengthDist == "zipfian":
		if w.lengths == nil {
			w.lengths = newZipfian(1, int64(n), zipfianConstant, 0)
		}
		n = int(w.lengths.next(w.rng.Float64(), int64(n)))
	}
	off := w.rng.IntN(len(w.values) - n + 1)
	return string(w.values[off : off+n])
}

// insertArgs is the command group's insert: every field.
func (w *worker) insertArgs(key string) []string {
	wl := w.f.Workload
	a := w.args[:0]
	switch wl.CommandGroup {
	case "string":
		a = append(a, "SET", key, w.value())
	case "hash":
		a = append(a, "HMSET", key)
		for i := range wl.FieldCount {
			a = append(a, "field"+strconv.Itoa(i), w.value())
		}
	case "list", "set":
		if wl.CommandGroup == "list" {
			a = append(a, "LPUSH", key)
		} else {
			a = append(a, "SADD", key)
		}
		for range wl.FieldCount {
			a = append(a, w.value())
		}
	case "zset":
		a = append(a, "ZADD", key)
		for i := range wl.FieldCount {
			a = append(a, strconv.Itoa(i), w.value())
		}
	}
	w.args = a
	return a
}

// updateArgs is the command group's insert command with one field.
func (w *worker) updateArgs(key string) []string {
	wl := w.f.Workload
	a := w.args[:0]
	i := w.rng.IntN(wl.FieldCount)
	switch wl.CommandGroup {
	case "string":
		a = append(a, "SET", key, w.value())
	case "hash":
		a = append(a, "HMSET", key, "field"+strconv.Itoa(i), w.value())
	case "list":
		a = append(a, "LPUSH", key, w.value())
	case "set":
		a = append(a, "SADD", key, w.value())
	case "zset":
		a = append(a, "ZADD", key, strconv.Itoa(i), w.value())
	}
	w.args = a
	return a
}

// readArgs is the command group's read of the whole record.
func (w *worker) readArgs(key string) []string {
	switch w.f.Workload.CommandGroup {
	case "string":
		return []string{"GET", key}
	case "hash":
		return []string{"HGETALL", key}
	case "list":
		return []string{"LRANGE", key, w.f.rangeArg[0], w.f.rangeArg[1]}
	case "set":
		return []string{"SMEMBERS", key}
	default:
		return []string{"ZRANGE", key, "0", "-1", "WITHSCORES"}
	}
}

func (w *worker) key(n int64) string {
	return KeyName(n, w.f.Workload.Ordered, w.f.Workload.ZeroPadding)
}

// nextKeynum is an existing record's number: drawn until it is one whose
// insert completed, as YCSB's CoreWorkload.nextKeynum does.
func (w *worker) nextKeynum() int64 {
	last := w.f.insert.lastValue()
	for {
		if k := w.choose.next(w.rng); k <= last {
			return k
		}
	}
}

// setRead and setWrite prepare a command in the worker's form.
func (w *worker) setRead(args []string) {
	if w.cl != nil {
		w.readCmd = toAny(w.readCmd[:0], args)
		return
	}
	w.read = resp.AppendCommand(w.read, args...)
}

func (w *worker) setWrite(args []string) {
	if w.cl != nil {
		w.writeCmd = toAny(w.writeCmd[:0], args)
		return
	}
	w.write = resp.AppendCommand(w.write, args...)
}

func toAny(dst []any, args []string) []any {
	for _, a := range args {
		dst = append(dst, a)
	}
	return dst
}

func (w *worker) Prepare() {
	w.read, w.write, w.inserts = w.read[:0], w.write[:0], false
	w.readCmd, w.writeCmd = w.readCmd[:0], w.writeCmd[:0]
	if w.f.Load {
		w.op, w.keynum, w.inserts = 0, w.f.insert.take(), true
		w.setWrite(w.insertArgs(w.key(w.keynum)))
		return
	}
	x := w.rng.Float64() * w.f.cum[len(w.f.cum)-1]
	w.op = len(w.f.cum) - 1
	for i, c := range w.f.cum {
		if x < c {
			w.op = i
			break
		}
	}
	switch Operations[w.f.opIndex[w.op]] {
	case "INSERT":
		w.keynum, w.inserts = w.f.insert.take(), true
		w.setWrite(w.insertArgs(w.key(w.keynum)))
	case "READ":
		w.setRead(w.readArgs(w.key(w.nextKeynum())))
	case "UPDATE":
		w.setWrite(w.updateArgs(w.key(w.nextKeynum())))
	case "READ-MODIFY-WRITE":
		k := w.key(w.nextKeynum())
		w.setRead(w.readArgs(k))
		w.setWrite(w.updateArgs(k))
	}
}

func (w *worker) Exec(ctx context.Context, s *engine.Step) error {
	s.Op, s.Ops = w.op, 1
	if w.cl != nil {
		return w.execCluster(ctx, s)
	}
	if w.conn == nil {
		c, err := redis.Dial(w.ctx, w.f.Target)
		if err != nil {
			return &engine.ConnectError{Err: err}
		}
		w.conn = c
	}
	for i, req := range [][]byte{w.read, w.write} {
		if len(req) == 0 {
			continue
		}
		isRead := i == 0
		s.BytesOut += len(req)
		rx := w.conn.BytesRead()
		if err := w.conn.Write(req); err != nil {
			return w.lost(err)
		}
		if err := w.conn.Read(&w.rep); err != nil {
			return w.lost(err)
		}
		s.BytesIn += int(w.conn.BytesRead() - rx)
		switch {
		case w.rep.IsError():
			s.Failed = 1
			if s.Err == nil {
				s.Err = append([]byte(nil), w.rep.Err...)
			}
			return nil
		case isRead && (w.rep.Nil || (w.rep.Type == '*' || w.rep.Type == '%' || w.rep.Type == '~') && w.rep.Elems == 0):
			s.Misses = 1 // NOT_FOUND
			return nil
		}
	}
	if w.inserts {
		w.f.insert.acknowledge(w.keynum)
	}
	return nil
}

// execCluster sends the prepared commands through the cluster client.
func (w *worker) execCluster(ctx context.Context, s *engine.Step) error {
	for i, args := range [][]any{w.readCmd, w.writeCmd} {
		if len(args) == 0 {
			continue
		}
		cmd := w.cl.Do(ctx, args...)
		err := cmd.Err()
		var re goredis.Error
		switch {
		case errors.Is(err, goredis.Nil):
			if i == 0 {
				s.Misses = 1
				return nil
			}
		case errors.As(err, &re):
			s.Failed, s.Err = 1, []byte(err.Error())
			return nil
		case err != nil:
			return err
		case i == 0:
			if v, ok := cmd.Val().([]any); ok && len(v) == 0 {
				s.Misses = 1
				return nil
			}
		}
	}
	if w.inserts {
		w.f.insert.acknowledge(w.keynum)
	}
	return nil
}

func (w *worker) lost(err error) error {
	_ = w.conn.Close()
	w.conn = nil
	return err
}

func (w *worker) Close() error {
	if w.cl != nil {
		return w.cl.Close()
	}
	if w.conn == nil {
		return nil
	}
	return w.conn.Close()
}

// commandFor names the command group's insert and read commands.
func commandFor(group string) (insert, read string) {
	switch group {
	case "string":
		return "set", "get"
	case "list":
		return "lpush", "lrange"
	case "set":
		return "sadd", "smembers"
	case "zset":
		return "zadd", "zrange"
	}
	return "hmset", "hgetall"
}

// RunSpec is the runner spec of a YCSB phase: threads, the phase's
// operation count (insertcount to load), -target as an open-loop rate,
// maxexecutiontime, operations split by type, and the server's count of the
// group's commands reconciled (not with read-modify-writes, which send two
// commands per operation). progress may be nil.
func RunSpec(c *Command, wl *Workload, f *Factory, tg target.Target, seed uint64, version string, progress func(stats.Progress)) runner.Spec {
	load := c.Phase == "load"
	cfg := engine.Config{Workers: wl.Threads, Seed: seed, Rate: wl.Target, Duration: wl.MaxExecution, Progress: progress}
	if load {
		cfg.Ops = wl.InsertCount
	} else {
		cfg.Ops = wl.OperationCount
	}
	if len(f.OpNames()) > 1 {
		cfg.Operations = f.OpNames()
	}
	spec := runner.Spec{Name: "ycsb " + c.Phase, Command: "ycsb " + c.Phase, Version: version,
		Config: result.RunConfig{Target: tg.Result(), Mode: fmt.Sprintf("YCSB core workload, redis.command_group=%s, %d fields of %d bytes",
			wl.CommandGroup, wl.FieldCount, wl.FieldLength)},
		Engine: cfg, Factory: f}
	for _, name := range cfg.Operations {
		spec.Operations = append(spec.Operations, result.Operation{Name: name, Weight: int(wl.Proportions[name] * 100)})
	}
	if tg.Cluster { // one node's INFO is not the cluster's
		return spec
	}
	insert, read := commandFor(wl.CommandGroup)
	spec.Sampler = redis.NewInfoSampler(tg)
	switch {
	case load:
		spec.Reconcile = []string{insert}
	case wl.Proportions["READ-MODIFY-WRITE"] == 0:
		spec.Reconcile = []string{read}
		if wl.Proportions["UPDATE"] > 0 || wl.Proportions["INSERT"] > 0 {
			spec.Reconcile = append(spec.Reconcile, insert)
		}
	}
	return spec
}
