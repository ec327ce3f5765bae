package ycsb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/driver/redis/cluster"
	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
	"github.com/tairbench/tairbench/pkg/resp"
	"github.com/tairbench/tairbench/pkg/result"
)

// Factory creates YCSB workers (engine.Factory): one connection each, the
// key counters shared.
type Factory struct {
	Target   endpoint.Target
	Workload *Workload
	Load     bool
	// Ops are the operation types of the run, as Step.Op indexes them.
	Ops []string

	insert *counter // load: the key sequence; run: new keys
	// latest is the latest distribution's zipfian, its zeta computed once
	// (it takes one power per record); each worker copies it.
	latestOnce sync.Once
	latest     *cmdtmpl.Zipfian
	// clusterOnce loads a cluster's slot map once, for every worker.
	clusterOnce sync.Once
	cluster     *cluster.ClusterMap
	clusterErr  error
	// stops ends the workers' connections' waits at the run's end.
	stops    transport.StopHubs
	cum      []float64
	opIndex  []int
	rangeArg [][]byte
	// fields and scores are "field0"… and "0"…, made once.
	fields, scores [][]byte
}

// NewFactory prepares the shared key counters and the operation mix.
func NewFactory(t endpoint.Target, w *Workload, load bool) *Factory {
	f := &Factory{Target: t, Workload: w, Load: load, rangeArg: [][]byte{argZero, argAll}}
	if r := strings.Fields(w.Range); len(r) == 2 {
		f.rangeArg = [][]byte{[]byte(r[0]), []byte(r[1])}
	}
	for i := range w.FieldCount {
		f.fields = append(f.fields, []byte("field"+strconv.Itoa(i)))
		f.scores = append(f.scores, []byte(strconv.Itoa(i)))
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

// ClusterRouting reports what a cluster run's routing followed (nil for a
// standalone target): the run spec's Routing.
func (f *Factory) ClusterRouting() *result.ClusterRouting {
	if f.cluster == nil {
		return nil
	}
	return target.Routing(f.cluster.Routing())
}

// NewWorker connects one worker: a connection, or with redis.cluster the
// slot-aware path that sends each key's command to its node.
func (f *Factory) NewWorker(ctx context.Context, id int, seed uint64) (engine.Worker, error) {
	w := &worker{f: f, rng: rand.New(rand.NewPCG(seed, 0x79637362))}
	if f.Target.Cluster {
		f.clusterOnce.Do(func() { f.cluster, f.clusterErr = cluster.LoadClusterMap(ctx, f.Target) })
		if f.clusterErr != nil {
			return nil, f.clusterErr
		}
		w.cluster = f.cluster.NewSender(ctx)
	} else {
		w.links = transport.NewLinks(ctx, &f.Target, f.stops.For(ctx))
		if _, err := w.links.Main(); err != nil {
			return nil, err
		}
	}
	wl := f.Workload
	lo, hi := wl.InsertStart, wl.InsertStart+wl.InsertCount-1
	switch wl.RequestDist {
	case "uniform":
		w.choose = uniformChooser{lo, hi}
	case "zipfian":
		expected := int64(float64(wl.OperationCount) * wl.Proportions["INSERT"] * 2)
		// YCSB's CoreWorkload: ScrambledZipfianGenerator(insertstart, insertstart+insertcount+expectednewkeys),
		// both ends included: one item more than the records and the expected inserts.
		w.choose = newScrambled(lo, hi+1+expected)
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
	f *Factory
	// links is a standalone target's connection; cluster, with
	// redis.cluster, the slot-aware path.
	links   *transport.Links
	cluster *cluster.ClusterSender
	rng     *rand.Rand
	choose  chooser
	// lengths draws zipfian field lengths.
	lengths *cmdtmpl.Zipfian
	values  []byte
	rep     resp.Reply

	op      int   // index into f.Ops
	keynum  int64 // the key of the prepared request
	key     []byte
	read    []byte
	write   []byte
	args    [][]byte // the command being built: views of constants, key and values
	inserts bool
}

// Command names and the argument constants, as bytes.
var (
	cmdSET, cmdGET, cmdHMSET, cmdHGETALL = []byte("SET"), []byte("GET"), []byte("HMSET"), []byte("HGETALL")
	cmdLPUSH, cmdLRANGE, cmdSADD         = []byte("LPUSH"), []byte("LRANGE"), []byte("SADD")
	cmdSMEMBERS, cmdZADD, cmdZRANGE      = []byte("SMEMBERS"), []byte("ZADD"), []byte("ZRANGE")
	argZero, argAll, argWithScores       = []byte("0"), []byte("-1"), []byte("WITHSCORES")
)

// value returns a field value of the workload's length distribution:
// constant, uniform over 1 … fieldlength, or zipfian over it (short
// values most often), as YCSB's CoreWorkload draws them. It is a view of
// the worker's random bytes, valid until the request is sent.
func (w *worker) value() []byte {
	n := w.f.Workload.FieldLength
	switch {
	case n <= 1:
	case w.f.Workload.FieldLengthDist == "uniform":
		n = 1 + w.rng.IntN(n)
	case w.f.Workload.FieldLengthDist == "zipfian":
		if w.lengths == nil {
			w.lengths = cmdtmpl.NewZipfian(uint64(n), zipfianConstant)
		}
		n = 1 + int(w.lengths.Sample(w.rng))
	}
	off := w.rng.IntN(len(w.values) - n + 1)
	return w.values[off : off+n]
}

// insertArgs is the command group's insert: every field.
func (w *worker) insertArgs() [][]byte {
	wl, f := w.f.Workload, w.f
	a := w.args[:0]
	switch wl.CommandGroup {
	case "string":
		a = append(a, cmdSET, w.key, w.value())
	case "hash":
		a = append(a, cmdHMSET, w.key)
		for i := range wl.FieldCount {
			a = append(a, f.fields[i], w.value())
		}
	case "list", "set":
		if wl.CommandGroup == "list" {
			a = append(a, cmdLPUSH, w.key)
		} else {
			a = append(a, cmdSADD, w.key)
		}
		for range wl.FieldCount {
			a = append(a, w.value())
		}
	case "zset":
		a = append(a, cmdZADD, w.key)
		for i := range wl.FieldCount {
			a = append(a, f.scores[i], w.value())
		}
	}
	w.args = a
	return a
}

// updateArgs is the command group's insert command with one field.
func (w *worker) updateArgs() [][]byte {
	wl, f := w.f.Workload, w.f
	a := w.args[:0]
	i := w.rng.IntN(wl.FieldCount)
	switch wl.CommandGroup {
	case "string":
		a = append(a, cmdSET, w.key, w.value())
	case "hash":
		a = append(a, cmdHMSET, w.key, f.fields[i], w.value())
	case "list":
		a = append(a, cmdLPUSH, w.key, w.value())
	case "set":
		a = append(a, cmdSADD, w.key, w.value())
	case "zset":
		a = append(a, cmdZADD, w.key, f.scores[i], w.value())
	}
	w.args = a
	return a
}

// readArgs is the command group's read of the whole record.
func (w *worker) readArgs() [][]byte {
	a := w.args[:0]
	switch w.f.Workload.CommandGroup {
	case "string":
		a = append(a, cmdGET, w.key)
	case "hash":
		a = append(a, cmdHGETALL, w.key)
	case "list":
		a = append(a, cmdLRANGE, w.key, w.f.rangeArg[0], w.f.rangeArg[1])
	case "set":
		a = append(a, cmdSMEMBERS, w.key)
	default:
		a = append(a, cmdZRANGE, w.key, argZero, argAll, argWithScores)
	}
	w.args = a
	return a
}

// setKey makes record n's key the prepared request's.
func (w *worker) setKey(n int64) {
	w.key = AppendKeyName(w.key[:0], n, w.f.Workload.Ordered, w.f.Workload.ZeroPadding)
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

// encode appends a command in RESP.
func (w *worker) encode(dst []byte, args [][]byte) []byte {
	dst = resp.AppendArray(dst, len(args))
	for _, a := range args {
		dst = resp.AppendBulk(dst, a)
	}
	return dst
}

func (w *worker) Prepare() {
	w.read, w.write, w.inserts = w.read[:0], w.write[:0], false
	if w.f.Load {
		w.op, w.keynum, w.inserts = 0, w.f.insert.take(), true
		w.setKey(w.keynum)
		w.write = w.encode(w.write, w.insertArgs())
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
		w.setKey(w.keynum)
		w.write = w.encode(w.write, w.insertArgs())
	case "READ":
		w.setKey(w.nextKeynum())
		w.read = w.encode(w.read, w.readArgs())
	case "UPDATE":
		w.setKey(w.nextKeynum())
		w.write = w.encode(w.write, w.updateArgs())
	case "READ-MODIFY-WRITE":
		w.setKey(w.nextKeynum())
		w.read = w.encode(w.read, w.readArgs())
		w.write = w.encode(w.write, w.updateArgs())
	}
}

// YieldTo implements engine.Yielder.
func (w *worker) YieldTo(yield func(time.Time) time.Time) {
	if w.links != nil {
		w.links.YieldTo(yield)
	}
	if w.cluster != nil {
		w.cluster.YieldTo(yield)
	}
}

// Redials implements engine.Redialer.
func (w *worker) Redials() int {
	if w.links != nil {
		return w.links.Redials()
	}
	if w.cluster != nil {
		return w.cluster.Redials()
	}
	return 0
}

func (w *worker) Exec(_ context.Context, s *engine.Step) error {
	s.Op, s.Ops = w.op, 1
	for i, req := range [2][]byte{w.read, w.write} {
		if len(req) == 0 {
			continue
		}
		rep, err := w.send(s, req)
		if err != nil {
			return err
		}
		switch {
		case rep.IsError():
			s.Failed = 1
			if s.Err == nil {
				s.Err = append([]byte(nil), rep.Err...)
			}
			return nil
		case i == 0 && redis.Empty(rep):
			s.Misses = 1 // NOT_FOUND
			return nil
		}
	}
	w.acknowledge()
	return nil
}

// send sends one encoded command of the prepared key and returns its reply.
func (w *worker) send(s *engine.Step, req []byte) (*resp.Reply, error) {
	if w.cluster != nil {
		return w.cluster.Send(s, w.key, req)
	}
	c, err := w.links.Main()
	if err != nil {
		return nil, err
	}
	s.BytesOut += len(req)
	rx := c.BytesRead()
	if err := c.Write(req); err != nil {
		w.links.Drop(c)
		return nil, err
	}
	if err := c.Read(&w.rep); err != nil {
		w.links.Drop(c)
		return nil, err
	}
	s.BytesIn += int(c.BytesRead() - rx)
	return &w.rep, nil
}

// acknowledge marks the prepared insert done, for the run's choosers
// (a load has no reads, and takes no lock).
func (w *worker) acknowledge() {
	if w.inserts && !w.f.Load {
		w.f.insert.acknowledge(w.keynum)
	}
}

func (w *worker) Close() error {
	if w.cluster != nil {
		return w.cluster.Close()
	}
	return w.links.Close()
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
func RunSpec(c *Command, wl *Workload, f *Factory, tg endpoint.Target, seed uint64, version string, progress func(stats.Progress)) run.Spec {
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
	spec := run.Spec{Name: "ycsb " + c.Phase, Command: "ycsb " + c.Phase, Version: version,
		Config: result.RunConfig{Target: tg.Result(), Mode: fmt.Sprintf("YCSB core workload, redis.command_group=%s, %d fields of %d bytes",
			wl.CommandGroup, wl.FieldCount, wl.FieldLength)},
		Engine: cfg, Factory: f}
	if tg.Cluster { // a standalone server's client count is held against the run's connections
		spec.Routing = f.ClusterRouting
	}
	target.Identified(&spec, tg)
	for _, name := range cfg.Operations {
		spec.Operations = append(spec.Operations, result.Operation{Name: name, Weight: int(wl.Proportions[name] * 100)})
	}
	if tg.Cluster || c.NoServerStats { // one node's INFO is not the cluster's
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
