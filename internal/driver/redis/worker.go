package redis

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/tairbench/tairbench/internal/driver/redis/cluster"
	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"

	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
	"github.com/tairbench/tairbench/pkg/resp"
)

// Mode is how commands are grouped into one request.
type Mode int

const (
	// Single sends one command per round trip.
	Single Mode = iota
	// Pipeline sends N commands in one write and reads N replies.
	Pipeline
	// Batch wraps N commands in MULTI … EXEC.
	Batch
	// Window keeps N commands in flight on the connection: each reply
	// read lets one more command go (memtier's --pipeline).
	Window
)

// Workload is what each worker sends.
type Workload struct {
	// Program is the first (often the only) operation's program.
	Program *cmdtmpl.Program
	// Ops are the operation types a mixed workload draws from by weight,
	// one per request; empty or one entry means every request sends Program.
	Ops  []Op
	Mode Mode
	// Inline sends the inline protocol instead of RESP arrays.
	Inline bool
	// Rotate cycles through Ops in order, by weight, instead of drawing.
	Rotate bool
	// SharedSeed, when not 0, seeds every worker's generators alike, so
	// that all connections send the same sequence of keys (memtier's
	// default, without --distinct-client-seed).
	SharedSeed uint64
	// N is the pipeline depth or batch size (1 for Single).
	N int
	// WindowLimit, for a Window, is how many commands one connection sends
	// in all (memtier's --requests per client); 0: no limit.
	WindowLimit int64
	// Sources, when set, gives each worker its own sequence of commands
	// (a replayed connection's, a ledger's writes) in place of Program:
	// one command a request (N in a Pipeline: what the Source appends at
	// once), on a standalone target.
	Sources func(id int) Source
}

// Source is one worker's own sequence of commands.
type Source interface {
	// AppendNext appends the worker's next command, RESP-encoded, to b
	// and returns it with the command's operation type (an index into
	// the run's operations).
	AppendNext(b []byte) ([]byte, int)
}

// ReplyChecker is a Source that knows what kind of reply its commands
// should get (a packet capture's): the worker hands it each reply's type
// and whether it was null.
type ReplyChecker interface {
	// Expects says whether the last command appended has a reply to check.
	Expects() bool
	// Reply takes the last command's reply: its RESP type and nullness.
	Reply(typ byte, null bool)
}

// ReplyValues is a Source that reads its commands' replies (a write
// ledger's): the worker hands it each reply of the request, by index.
type ReplyValues interface {
	Value(i int, rep *resp.Reply)
}

// Op is one operation type of a mixed workload.
type Op struct {
	Name     string
	Template string
	Weight   int
	Program  *cmdtmpl.Program
}

// Mixed says whether the workload draws among several operation types.
func (w Workload) Mixed() bool { return len(w.Ops) > 1 }

// OpNames names the operation types (nil for a single one).
func (w Workload) OpNames() []string {
	if !w.Mixed() {
		return nil
	}
	names := make([]string, len(w.Ops))
	for i, o := range w.Ops {
		names[i] = o.Name
	}
	return names
}

// picker draws operation types by weight with its own generator, or, with
// rotate, cycles through them in order, each as many times in a row as its
// weight (memtier's --ratio 1:10: one SET, then ten GETs).
type picker struct {
	cum    []uint64 // cumulative weights
	rng    *rand.Rand
	rotate bool
	n      uint64
}

func newPicker(ops []Op, seed uint64, rotate bool) *picker {
	if len(ops) < 2 {
		return nil
	}
	p := &picker{rng: rand.New(rand.NewPCG(seed, 0x6f70732d6d6978)), rotate: rotate}
	var sum uint64
	for _, o := range ops {
		sum += uint64(o.Weight)
		p.cum = append(p.cum, sum)
	}
	return p
}

func (p *picker) pick() int {
	if p == nil {
		return 0
	}
	var x uint64
	if p.rotate {
		x = p.n % p.cum[len(p.cum)-1]
		p.n++
	} else {
		x = p.rng.Uint64N(p.cum[len(p.cum)-1])
	}
	for i, c := range p.cum {
		if x < c {
			return i
		}
	}
	return len(p.cum) - 1
}

// gens returns one generator per operation type, seeded from seed, for
// worker part of parts (for ranges that split between workers).
func (w Workload) gens(seed uint64, part, parts int) []*cmdtmpl.Gen {
	if w.Program == nil {
		return nil // a Source's commands
	}
	if !w.Mixed() {
		return []*cmdtmpl.Gen{w.Program.NewGenPart(seed, part, parts)}
	}
	out := make([]*cmdtmpl.Gen, len(w.Ops))
	for i, o := range w.Ops {
		out[i] = o.Program.NewGenPart(engine.WorkerSeed(seed, i), part, parts)
	}
	return out
}

// OpsPerRequest returns the number of template commands in one request.
func (w Workload) OpsPerRequest() int {
	if w.Mode == Single || w.Mode == Window || w.N < 1 {
		return 1
	}
	return w.N
}

// RepliesPerRequest returns the number of replies one request gets: one a
// command, and MULTI's and EXEC's around a transaction's.
func (w Workload) RepliesPerRequest() int {
	if w.Mode == Batch {
		return w.OpsPerRequest() + 2
	}
	return w.OpsPerRequest()
}

// Factory creates workers for a target and workload. It implements
// engine.Factory. A cluster target (Target.Cluster) routes each command to
// the node serving its key's slot (slotWorker).
type Factory struct {
	Target   endpoint.Target
	Workload Workload
	// Workers is how many workers the run has (for ranges that split
	// between them); 0 counts as 1.
	Workers int

	clusterOnce sync.Once
	cluster     *cluster.State
	clusterErr  error
	// stops ends the workers' connections' waits at the run's end.
	stops transport.StopHubs
	// switches, for a target the Sentinels name, counts their
	// announcements that the primary moved.
	switchOnce sync.Once
	switches   *transport.Switches
}

// clusterState loads the slot map once, for every worker of the run.
func (f *Factory) clusterState(ctx context.Context) (*cluster.State, error) {
	f.clusterOnce.Do(func() {
		var m *cluster.ClusterMap
		if m, f.clusterErr = cluster.LoadClusterMap(ctx, f.Target); f.clusterErr == nil {
			f.cluster = m.State
		}
	})
	return f.cluster, f.clusterErr
}

// ClusterRouting reports what a cluster run's routing followed (nil for a
// standalone target).
func (f *Factory) ClusterRouting() *cluster.Routing {
	if f.cluster == nil {
		return nil
	}
	return f.cluster.Routing()
}

// NewWorker connects one worker.
func (f *Factory) NewWorker(ctx context.Context, id int, seed uint64) (engine.Worker, error) {
	if f.Workload.SharedSeed != 0 {
		seed = f.Workload.SharedSeed
	}
	gens := f.Workload.gens(seed, id, f.Workers)
	pk := newPicker(f.Workload.Ops, seed, f.Workload.Rotate)
	var src Source
	if f.Workload.Sources != nil {
		src = f.Workload.Sources(id)
	}
	if src != nil && (f.Target.Cluster || f.Workload.Mode != Single && f.Workload.Mode != Pipeline) {
		return nil, errSources
	}
	if f.Target.Cluster {
		cs, err := f.clusterState(ctx)
		if err != nil {
			return nil, err
		}
		if f.Workload.Mode == Window {
			return newClusterWindow(f, cs, ctx, gens, pk), nil
		}
		return newSlotWorker(f, cs, ctx, gens, pk), nil
	}
	if len(f.Target.Sentinels) > 0 {
		f.switchOnce.Do(func() { f.switches = transport.WatchSwitches(ctx, f.Target) })
	}
	links := transport.NewLinks(ctx, &f.Target, f.stops.For(ctx))
	if _, err := links.Main(); err != nil {
		return nil, err
	}
	raw := &rawWorker{f: f, gens: gens, pick: pk, src: src, links: links}
	raw.check, _ = src.(ReplyChecker)
	raw.vals, _ = src.(ReplyValues)
	switch {
	case f.Workload.Mode == Window:
		return newWindowWorker(raw), nil
	case transport.RxStamps && f.Target.TLS == nil && len(f.Target.Sentinels) == 0 && f.Target.Retry == 0:
		// A worker that follows the Sentinels' primary drops its
		// connection after READONLY or LOADING, and one that retries
		// sends again: each waits on its own.
		return &deferringWorker{rawWorker: raw}, nil
	}
	return raw, nil
}

// rawWorker sends pre-encoded requests on one connection.
type rawWorker struct {
	f      *Factory
	gens   []*cmdtmpl.Gen
	pick   *picker
	src    Source       // in place of gens, when set
	check  ReplyChecker // src, when it checks replies
	vals   ReplyValues  // src, when it reads replies
	op     int
	links  *transport.Links
	req    []byte
	errBuf []byte
	// switched is the Sentinels' switches this worker has followed.
	switched int64
}

var errNilExec = []byte("EXEC returned nil (transaction aborted)")

var (
	multi = []byte("*1\r\n$5\r\nMULTI\r\n")
	exec  = []byte("*1\r\n$4\r\nEXEC\r\n")
)

// YieldTo implements engine.Yielder.
func (w *rawWorker) YieldTo(yield func(time.Time) time.Time) { w.links.YieldTo(yield) }

// Redials implements engine.Redialer.
func (w *rawWorker) Redials() int { return w.links.Redials() }

func (w *rawWorker) Prepare() {
	if w.src != nil {
		w.req, w.op = w.src.AppendNext(w.req[:0])
		return
	}
	w.op = w.pick.pick()
	gen := w.gens[w.op]
	b := w.req[:0]
	switch w.f.Workload.Mode {
	case Batch:
		b = append(b, multi...)
		for i := 0; i < w.f.Workload.N; i++ {
			b = gen.AppendRESP(b)
		}
		b = append(b, exec...)
	case Pipeline:
		for i := 0; i < w.f.Workload.N; i++ {
			b = w.appendCommand(b, gen)
		}
	default:
		b = w.appendCommand(b, gen)
	}
	w.req = b
}

func (w *rawWorker) appendCommand(b []byte, gen *cmdtmpl.Gen) []byte {
	if w.f.Workload.Inline {
		return gen.AppendInline(b)
	}
	return gen.AppendRESP(b)
}

// Empty reports a reply that found nothing: a null or an empty array.
func Empty(r *resp.Reply) bool {
	if r.Nil {
		return true
	}
	switch r.Type {
	case '*', '~', '%':
		return r.Elems == 0
	}
	return false
}

func (w *rawWorker) Exec(ctx context.Context, s *engine.Step) error {
	s.Op = w.op
	if sw := w.f.switches; sw != nil && sw.Count() != w.switched {
		// The Sentinels moved the primary: ask them again.
		w.switched = sw.Count()
		if w.links.Direct != nil {
			w.links.Drop(w.links.Direct)
		}
	}
	for attempt := 0; ; attempt++ {
		err := w.attempt(s)
		if attempt >= w.f.Target.Retry || err == nil && (s.Failed == 0 || !transport.Retryable(s.Err)) || ctx.Err() != nil {
			return err // no retry left, or nothing to retry
		}
		// Sent again, counted apart (Step.Retried): the outcome that
		// counts is the last attempt's.
		s.Retried += w.f.Workload.OpsPerRequest()
		s.Ops, s.Failed, s.Misses, s.Err = 0, 0, 0, nil
		select {
		case <-ctx.Done():
			return err
		case <-time.After(retryPause << min(attempt, 4)):
		}
	}
}

// retryPause is the pause before a first retry, doubled for each next.
const retryPause = 10 * time.Millisecond

// attempt sends the request once and reads its replies; a reply that
// says the server is not the primary drops the connection when the
// target follows Sentinels.
func (w *rawWorker) attempt(s *engine.Step) error {
	c, err := w.links.Main()
	if err != nil {
		return err
	}
	s.BytesOut = len(w.req)
	rx := c.BytesRead()
	err = w.exec(c, s)
	s.BytesIn = int(c.BytesRead() - rx)
	if err != nil {
		w.links.Drop(c)
		return err
	}
	if s.Failed > 0 && len(w.f.Target.Sentinels) > 0 && transport.FollowsTopology(s.Err) {
		// Not the primary (any more): the next request asks the
		// Sentinels again.
		w.links.Drop(c)
	}
	return nil
}

func (w *rawWorker) exec(c *transport.Conn, s *engine.Step) error {
	// Every earlier reply was read: the request and its first reply go
	// through WriteRead.
	return w.replies(c, s, c.WriteRead(w.req, &c.Rep))
}

// replies counts the request's first reply, which reading it (first: the
// read's error) left in c.rep, then reads and counts the rest.
func (w *rawWorker) replies(c *transport.Conn, s *engine.Step, first error) error {
	rep := &c.Rep
	if first != nil {
		return first
	}
	if w.f.Workload.Mode != Batch {
		countReply(s, rep, &w.errBuf)
		if w.check != nil {
			w.check.Reply(rep.Type, rep.Nil)
		}
		if w.vals != nil {
			w.vals.Value(0, rep)
		}
		for i := 1; i < w.f.Workload.OpsPerRequest(); i++ {
			if err := c.Read(rep); err != nil {
				return err
			}
			countReply(s, rep, &w.errBuf)
			if w.vals != nil {
				w.vals.Value(i, rep)
			}
		}
		return nil
	}
	n := w.f.Workload.N // rep is MULTI's reply
	if rep.IsError() {
		noteErr(s, &w.errBuf, rep.Err)
	}
	queuedErr := 0
	for i := 0; i < n; i++ {
		if err := c.Read(rep); err != nil {
			return err
		}
		if rep.IsError() {
			queuedErr++
			noteErr(s, &w.errBuf, rep.Err)
		}
	}
	if err := c.Read(rep); err != nil { // EXEC
		return err
	}
	countExec(s, rep, n, queuedErr, &w.errBuf)
	return nil
}

// noteErr keeps msg, copied into buf, as the step's first error.
func noteErr(s *engine.Step, buf *[]byte, msg []byte) {
	if s.Err == nil {
		*buf = append((*buf)[:0], msg...)
		s.Err = *buf
	}
}

// countReply counts one command's reply into s: a failure (an error
// reply) or a miss (nothing found).
func countReply(s *engine.Step, rep *resp.Reply, buf *[]byte) {
	s.Ops++
	switch {
	case rep.IsError():
		s.Failed++
		noteErr(s, buf, rep.Err)
	case Empty(rep):
		s.Misses++
	}
}

// countExec counts a transaction of n commands from EXEC's reply, of which
// queuedErr were refused when queued: EXECABORT or a nil reply (WATCH
// failed) aborts all n, and otherwise each error inside the reply fails its
// command.
func countExec(s *engine.Step, rep *resp.Reply, n, queuedErr int, buf *[]byte) {
	s.Ops += n
	switch {
	case rep.IsError():
		noteErr(s, buf, rep.Err)
		s.Failed, s.Aborted = s.Failed+n, true
	case rep.Nil:
		s.Failed, s.Aborted = s.Failed+n, true
		if s.Err == nil {
			s.Err = errNilExec
		}
	default:
		s.Failed += rep.NestedErrors + queuedErr
		if rep.NestedErrors > 0 {
			noteErr(s, buf, rep.FirstNested)
		}
	}
}

func (w *rawWorker) Close() error { return w.links.Close() }

// errNoProgram is returned when a factory is used without a workload.
var errNoProgram = errors.New("redis: no command template")

// errSources says where a worker's own commands cannot go (yet).
var errSources = errors.New("redis: a worker's own commands (a replay) go one a request (or one pipeline) to a standalone target")

// Validate checks that the factory can run.
func (f *Factory) Validate() error {
	if f.Workload.Sources != nil {
		if f.Target.Cluster || f.Workload.Mode != Single {
			return errSources
		}
		return nil
	}
	if f.Workload.Program == nil {
		return errNoProgram
	}
	if f.Workload.Mode != Single && f.Workload.N < 1 {
		return fmt.Errorf("redis: batch or pipeline size must be at least 1, got %d", f.Workload.N)
	}
	return nil
}
