package redis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tairbench/tairbench/internal/driver/redis/cluster"
	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

// errLostNode is returned when a node's connection failed while the
// request still had replies to read from it.
var errLostNode = errors.New("cluster: a node's connection failed mid-request")

// maxTxnRetries bounds how often a transaction is sent again after a
// redirection or TRYAGAIN (then its errors count); tryAgainPause is the
// wait before a TRYAGAIN retry.
const (
	maxTxnRetries = 200
	tryAgainPause = time.Millisecond
)

// slotWorker sends each request's commands to the nodes that serve their
// keys' slots, on raw connections (one per node, dialled on first use): a
// pipeline is split into one pipeline per node, and a MULTI/EXEC batch into
// one transaction per slot (a cluster refuses a transaction across slots),
// pipelined per node. MOVED updates the shared slot map and resends; ASK
// resends once to the importing node after ASKING.
type slotWorker struct {
	cluster.Router
	f    *Factory
	gens []*cmdtmpl.Gen
	keys []int // per operation type: its key's argument, or cluster.KeyDynamic / -1
	args []int // per operation type: its argument count
	pick *picker
	op   int

	// The request: each command's bytes (at) and slot. A pipeline's
	// commands are encoded straight into their nodes' buffers (out, with
	// each node's commands in byNode) under the slot map prep; other
	// requests' into cmds.
	cmds   []byte
	at     []cmdAt
	slots  []int
	prep   *cluster.Topology
	byNode [][]int

	// Per request scratch: each node's part of the request, the pipeline's
	// redirected commands, and a transaction sent again.
	out   [][]byte
	retry []byte
	redo  []redirected
	txns  []txn
	errBf []byte
}

// cmdAt locates one command of the request: bytes lo:hi of node buf's
// part (out[buf]), or of cmds when buf is -1.
type cmdAt struct{ buf, lo, hi int }

// redirected is a pipeline's command to send again: to the new owner after
// MOVED (the slot map already follows it), or after ASKING to addr.
type redirected struct {
	i    int
	ask  bool
	addr string
}

// txn is one transaction of a batch: the commands of one slot.
type txn struct {
	node, slot int
	cmds       []int
}

func newSlotWorker(f *Factory, cs *cluster.State, ctx context.Context, gens []*cmdtmpl.Gen, pick *picker) *slotWorker {
	w := &slotWorker{Router: cluster.NewRouter(ctx, &f.Target, cs), f: f, gens: gens, pick: pick}
	w.keys, w.args = keyPositions(f.Workload)
	return w
}

// keyPositions is, per operation type, its key's argument (or cluster.KeyDynamic,
// or -1 without a key) and its argument count.
func keyPositions(wl Workload) (keys, args []int) {
	progs := []*cmdtmpl.Program{wl.Program}
	if wl.Mixed() {
		progs = progs[:0]
		for _, o := range wl.Ops {
			progs = append(progs, o.Program)
		}
	}
	for _, p := range progs {
		keys, args = append(keys, cluster.KeyArgOf(p.Template())), append(args, p.Template().NumArgs())
	}
	return keys, args
}

// Prepare expands the request and reads each command's slot from its key
// as drawn; a pipeline's commands go straight to their nodes' buffers.
func (w *slotWorker) Prepare() {
	w.op = w.pick.pick()
	gen, ki := w.gens[w.op], w.keys[w.op]
	n := w.f.Workload.OpsPerRequest()
	w.cmds, w.at, w.slots = w.cmds[:0], w.at[:0], w.slots[:0]
	var topo *cluster.Topology
	if w.f.Workload.Mode == Pipeline {
		topo = w.bind()
		w.prep = topo
		w.clearNodes()
	}
	for i := 0; i < n; i++ {
		gen.Draw()
		slot := cluster.DrawnSlot(gen, ki, w.args[w.op])
		w.slots = append(w.slots, slot)
		if topo != nil {
			nd := cluster.NodeFor(topo, slot)
			lo := len(w.out[nd])
			w.out[nd] = gen.AppendDrawn(w.out[nd])
			w.placed(nd, lo)
			continue
		}
		lo := len(w.cmds)
		w.cmds = gen.AppendDrawn(w.cmds)
		w.at = append(w.at, cmdAt{-1, lo, len(w.cmds)})
	}
}

func (w *slotWorker) cmd(i int) []byte {
	a := w.at[i]
	if a.buf < 0 {
		return w.cmds[a.lo:a.hi]
	}
	return w.out[a.buf][a.lo:a.hi]
}

// reroute moves a pipeline prepared under an older slot map to the
// current one's nodes (after a MOVED between Prepare and Exec): the
// commands are copied aside in order, then placed again.
func (w *slotWorker) reroute(topo *cluster.Topology) {
	n := len(w.at)
	w.cmds = w.cmds[:0]
	for i := range n {
		lo := len(w.cmds)
		w.cmds = append(w.cmds, w.cmd(i)...)
		w.at[i] = cmdAt{-1, lo, len(w.cmds)}
	}
	w.clearNodes()
	w.at = w.at[:0]
	for i := range n {
		src := w.at[:n][i] // placed overwrites entry i only after it is read
		nd := cluster.NodeFor(topo, w.slots[i])
		lo := len(w.out[nd])
		w.out[nd] = append(w.out[nd], w.cmds[src.lo:src.hi]...)
		w.placed(nd, lo)
	}
	w.prep = topo
}

// clearNodes empties each node's part of the request.
func (w *slotWorker) clearNodes() {
	for k := range w.out {
		w.out[k], w.byNode[k] = w.out[k][:0], w.byNode[k][:0]
	}
}

// placed records that the request's next command went to node nd's part,
// from byte lo to its end.
func (w *slotWorker) placed(nd, lo int) {
	w.byNode[nd] = append(w.byNode[nd], len(w.at))
	w.at = append(w.at, cmdAt{nd, lo, len(w.out[nd])})
}

// bind follows the current slot map, with a part of the request for
// each of its nodes.
func (w *slotWorker) bind() *cluster.Topology {
	topo := w.Router.Bind()
	for len(w.out) < len(topo.Addrs) {
		w.out, w.byNode = append(w.out, nil), append(w.byNode, nil)
	}
	return topo
}

func (w *slotWorker) Exec(ctx context.Context, s *engine.Step) error {
	s.Op = w.op
	w.bind()
	switch w.f.Workload.Mode {
	case Pipeline:
		return w.pipeline(s)
	case Batch:
		return w.batch(s)
	}
	return w.one(s, 0, "")
}

// one sends command i alone under the bound slot map, following
// redirections; askAddr, when set, is an ASK the command already got.
func (w *slotWorker) one(s *engine.Step, i int, askAddr string) error {
	if err := w.Send(s, w.slots[i], w.cmd(i), askAddr); err != nil {
		return err
	}
	countReply(s, &w.Rep, &w.errBf)
	return nil
}

// pipeline writes each node's part of the request (encoded there by
// Prepare), then reads the replies node by node in the order it wrote them,
// so that the replies read first are the ones that come back first (one
// wait per request, rather than one per node in the request's order). A
// redirected command is sent again alone, straight to where its reply
// pointed.
func (w *slotWorker) pipeline(s *engine.Step) error {
	if w.prep != w.Topo {
		w.reroute(w.Topo)
	}
	if err := w.flushNodes(s); err != nil {
		return err
	}
	w.redo = w.redo[:0]
	for k := range w.Topo.Addrs {
		if len(w.byNode[k]) == 0 {
			continue
		}
		c := w.NodeConns[k]
		if c == nil {
			return errLostNode
		}
		for _, i := range w.byNode[k] {
			if err := w.Read(c, s); err != nil {
				return err
			}
			if w.Rep.IsError() {
				if ask, slot, addr, ok := cluster.Redirect(w.Rep.Err); ok {
					w.State.Followed(ask, slot, addr)
					w.redo = append(w.redo, redirected{i, ask, addr})
					continue
				}
			}
			countReply(s, &w.Rep, &w.errBf)
		}
	}
	for _, r := range w.redo {
		w.bind() // follows the MOVED replies just read
		askAddr := ""
		if r.ask {
			askAddr = r.addr
		}
		if err := w.one(s, r.i, askAddr); err != nil {
			return err
		}
	}
	return nil
}

// flushNodes writes each node's part of the request.
func (w *slotWorker) flushNodes(s *engine.Step) error {
	for k := range w.Topo.Addrs {
		if len(w.out[k]) == 0 {
			continue
		}
		c, err := w.Conn(k)
		if err != nil {
			return err
		}
		if err := w.Write(c, w.out[k], s); err != nil {
			return err
		}
	}
	return nil
}

// batch sends one MULTI … EXEC per slot, pipelined per node.
func (w *slotWorker) batch(s *engine.Step) error {
	topo := w.Topo
	w.txns = w.txns[:0]
	for i := range w.at {
		k := -1
		for j := range w.txns {
			if w.txns[j].slot == w.slots[i] {
				k = j
				break
			}
		}
		if k < 0 { // a new transaction, reusing the index slice of an earlier request's
			k = len(w.txns)
			if k < cap(w.txns) {
				w.txns = w.txns[:k+1]
			} else {
				w.txns = append(w.txns, txn{})
			}
			t := &w.txns[k]
			t.node, t.slot, t.cmds = cluster.NodeFor(topo, w.slots[i]), w.slots[i], t.cmds[:0]
		}
		w.txns[k].cmds = append(w.txns[k].cmds, i)
	}
	for k := range topo.Addrs {
		w.out[k] = w.out[k][:0]
	}
	for _, t := range w.txns {
		w.out[t.node] = w.appendTxn(w.out[t.node], t)
	}
	if err := w.flushNodes(s); err != nil {
		return err
	}
	for _, t := range w.txns {
		c := w.NodeConns[t.node]
		if c == nil {
			return errLostNode
		}
		moved, err := w.readTxn(c, t, s)
		if err != nil {
			return err
		}
		if moved != "" {
			if err := w.retryTxn(t, moved, s); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *slotWorker) appendTxn(b []byte, t txn) []byte {
	b = append(b, multi...)
	for _, i := range t.cmds {
		b = append(b, w.cmd(i)...)
	}
	return append(b, exec...)
}

// readTxn reads MULTI's, each queued command's and EXEC's replies. A
// redirection or TRYAGAIN (for a queued command, or for EXEC, where a
// cluster checks the transaction's keys) aborts the transaction; it then
// returns that reply to follow instead of counting.
func (w *slotWorker) readTxn(c *transport.Conn, t txn, s *engine.Step) (string, error) {
	if err := w.Read(c, s); err != nil { // MULTI
		return "", err
	}
	if w.Rep.IsError() {
		noteErr(s, &w.errBf, w.Rep.Err)
	}
	queuedErr, redir := 0, ""
	for range t.cmds {
		if err := w.Read(c, s); err != nil {
			return "", err
		}
		if w.Rep.IsError() {
			if retryable(w.Rep.Err) {
				if redir == "" {
					redir = string(w.Rep.Err)
				}
				continue
			}
			queuedErr++
			noteErr(s, &w.errBf, w.Rep.Err)
		}
	}
	if err := w.Read(c, s); err != nil { // EXEC
		return "", err
	}
	if redir == "" && w.Rep.IsError() && retryable(w.Rep.Err) {
		// A cluster checks a transaction's keys at EXEC: TRYAGAIN (or a
		// redirection) comes here when the queued commands were accepted.
		redir = string(w.Rep.Err)
	}
	if redir != "" {
		return redir, nil
	}
	countExec(s, &w.Rep, len(t.cmds), queuedErr, &w.errBf)
	return "", nil
}

// retryable reports a reply that sends a transaction again: MOVED, ASK or
// TRYAGAIN.
func retryable(msg []byte) bool {
	_, _, _, ok := cluster.Redirect(msg)
	return ok || bytes.HasPrefix(msg, cluster.TryAgainReply)
}

// retryTxn sends a redirected transaction again: to the new owner after
// MOVED, after ASKING to the importing node after ASK (ASKING before MULTI
// holds for the whole transaction), and, after TRYAGAIN (a transaction
// over keys split between the two nodes of a migrating slot), to the
// slot's owner once more after a pause: the wait is the transaction's
// latency, as it would be for the application.
func (w *slotWorker) retryTxn(t txn, redir string, s *engine.Step) error {
	for attempt := 1; ; attempt++ {
		ask, slot, addr, ok := cluster.Redirect([]byte(redir))
		switch {
		case ok && ask:
			w.State.Asked.Add(1)
		case ok:
			w.State.Reassign(slot, addr)
		default: // TRYAGAIN
			w.State.TryAgain.Add(1)
			time.Sleep(tryAgainPause)
			topo := w.State.Current.Load()
			addr = topo.Addrs[cluster.NodeFor(topo, t.slot)]
		}
		c, err := w.Links.To(addr)
		if err != nil {
			return err
		}
		b := w.retry[:0]
		if ask {
			b = append(b, cluster.Asking...)
		}
		b = w.appendTxn(b, t)
		w.retry = b
		if err := w.Write(c, b, s); err != nil {
			return err
		}
		if ask {
			if err := w.Read(c, s); err != nil {
				return err
			}
		}
		if redir, err = w.readTxn(c, t, s); err != nil || redir == "" {
			return err
		}
		if attempt >= maxTxnRetries {
			n := len(t.cmds)
			s.Ops, s.Failed, s.Aborted = s.Ops+n, s.Failed+n, true
			if s.Err == nil {
				w.errBf = fmt.Appendf(w.errBf[:0], "cluster: transaction given up after %d retries while its slot migrated (last reply: %s)", maxTxnRetries, redir)
				s.Err = w.errBf
			}
			return nil
		}
	}
}

func (w *slotWorker) Close() error { return w.Links.Close() }
