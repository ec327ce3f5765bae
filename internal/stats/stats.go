// Package stats records latencies and errors per worker without locks and
// merges them once per interval into run totals and a per-interval series.
package stats

import (
	"sort"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tairbench/tairbench/pkg/result"
)

const (
	// LowestUS and HighestUS bound the latency histogram (microseconds).
	// Larger values are counted as overflow and recorded at HighestUS.
	LowestUS  = 1
	HighestUS = 60 * 1_000_000
	// SigFigs is the histogram's precision in significant decimal digits.
	SigFigs = 3
	// maxDistinctErrors bounds the distinct error groups one worker keeps.
	maxDistinctErrors = 64
	otherErrors       = "(other error messages)"
)

// Kind says what failed.
type Kind uint8

const (
	// Reply is an error reply: the server answered the command with an error.
	Reply Kind = iota
	// Lost is a request lost on its connection (timeout, reset, closed):
	// its commands count as failed.
	Lost
	// Connect is a failed attempt to (re)connect: not a command.
	Connect
)

// String names the kind as results do.
func (k Kind) String() string {
	switch k {
	case Lost:
		return "connection"
	case Connect:
		return "connect"
	}
	return "reply"
}

// group is one error group of a recorder: how many, and the first message verbatim.
type group struct {
	count   int64
	example string
}

// NewHistogram returns an empty latency histogram with tairbench's range.
func NewHistogram() *hdr.Histogram { return hdr.New(LowestUS, HighestUS, SigFigs) }

// counters are the additive parts of a recorder's state.
type counters struct {
	ops, requests, errors, transport, aborted, overflow, samples  int64
	retried                                                       int64
	sumNS, late, connectFailures, lost, misses, bytesIn, bytesOut int64
	// Open-loop runs: latency from the intended start, requests that
	// started behind schedule, and wakeups the client itself missed.
	sumCorrectedNS, behind, behindDown, behindNS, behindMaxNS, lags, lagMaxNS int64
	// firstNS and lastNS are the first and last reply's time, in ns since
	// the measured time's start plus 1 (0: no reply).
	firstNS, lastNS int64
	// slots marks, with Aggregator.KeepSeconds, the 128ths of the
	// interval in which a request got a reply that was no error.
	slots Slots
	// An open loop's schedule, counted when each loop ends: the measured
	// time's requests sent, and those due in it never sent (notSentDown:
	// for want of a connection).
	sent, notSent, notSentDown int64
}

func (c *counters) add(o counters) {
	c.ops += o.ops
	c.requests += o.requests
	c.errors += o.errors
	c.transport += o.transport
	c.aborted += o.aborted
	c.retried += o.retried
	c.overflow += o.overflow
	c.samples += o.samples
	c.sumNS += o.sumNS
	c.late += o.late
	c.connectFailures += o.connectFailures
	c.lost += o.lost
	c.misses += o.misses
	c.bytesIn += o.bytesIn
	c.bytesOut += o.bytesOut
	c.sumCorrectedNS += o.sumCorrectedNS
	c.behind += o.behind
	c.behindDown += o.behindDown
	c.behindNS += o.behindNS
	c.behindMaxNS = max(c.behindMaxNS, o.behindMaxNS)
	c.lags += o.lags
	c.lagMaxNS = max(c.lagMaxNS, o.lagMaxNS)
	c.sent += o.sent
	c.notSent += o.notSent
	c.notSentDown += o.notSentDown
	c.slots[0] |= o.slots[0]
	c.slots[1] |= o.slots[1]
	if o.firstNS != 0 && (c.firstNS == 0 || o.firstNS < c.firstNS) {
		c.firstNS = o.firstNS
	}
	c.lastNS = max(c.lastNS, o.lastNS)
}

func (c *counters) empty() bool { return *c == counters{} }

// opsEmpty says whether no operation type's counters hold anything.
func opsEmpty(ops []opPart) bool {
	for i := range ops {
		if !ops[i].c.empty() {
			return false
		}
	}
	return true
}

// Recorder is one worker's recorder. Only its worker may call its methods.
type Recorder struct {
	agg *Aggregator
	// buf holds latencies until they are handed to the aggregator's
	// histograms (when full, and at each interval's end): a recorder costs
	// a few kilobytes, not a histogram, so that 10,000 connections fit.
	buf       []sample
	corrected bool // the run is open-loop
	cur       counters
	errs      map[string]*group
	norm      []byte
	nextFlush time.Time
	index     int
	warmOps   int64
	lastWarm  bool // the last Record fell in the warm-up
	// ops splits a mixed run by operation type (nil for one type).
	ops []opPart
}

// sample is one buffered latency in µs: of operation type op (−1: none),
// from the intended start when corrected.
type sample struct {
	us        uint32
	op        int16
	corrected bool
}

// sampleBuffer is how many latencies a recorder keeps before handing them
// on: 256 bytes a worker (at 10,000 connections, 2.5 MB; 256 latencies
// took 20 MB, 64 took 5 MB), one lock of the aggregator's per 32 requests.
const sampleBuffer = 32

func (r *Recorder) add(us int64, op int, corrected bool) {
	r.buf = append(r.buf, sample{us: uint32(us), op: int16(op), corrected: corrected})
	if len(r.buf) == cap(r.buf) {
		r.agg.addSamples(r.index, r.buf)
		r.buf = r.buf[:0]
	}
}

// opPart is one operation type's share of a recorder, an interval or the run.
type opPart struct {
	c         counters // ops, requests, errors, misses, samples, sumNS, sumCorrectedNS
	hist      *hdr.Histogram
	corrected *hdr.Histogram
}

func (p *opPart) reset() {
	p.c = counters{}
	if p.hist != nil {
		p.hist.Reset()
	}
	if p.corrected != nil {
		p.corrected.Reset()
	}
}

// record adds one buffered latency to p's histograms, taking them from
// spare on first use.
func (p *opPart) record(s sample, spare *histPool) {
	h := &p.hist
	if s.corrected {
		h = &p.corrected
	}
	if *h == nil {
		*h = spare.get()
	}
	_ = (*h).RecordValue(int64(s.us))
}

// histPool keeps the histograms of closed intervals for the intervals
// that follow, so that a run's ticks allocate none: each is about 130 KB,
// and a new one a tick would grow the heap to the collector's goal on a
// long run. It holds no more than were in use at once.
type histPool struct{ free []*hdr.Histogram }

// get returns an empty histogram: a kept one, or a new one.
func (p *histPool) get() *hdr.Histogram {
	n := len(p.free)
	if n == 0 {
		return NewHistogram()
	}
	h := p.free[n-1]
	p.free[n-1] = nil
	p.free = p.free[:n-1]
	return h
}

// put empties h and keeps it; a nil h is passed over.
func (p *histPool) put(h *hdr.Histogram) {
	if h != nil {
		h.Reset()
		p.free = append(p.free, h)
	}
}

func clampUS(d time.Duration) int64 { return min(max(d.Microseconds(), LowestUS), HighestUS) }

// RecordOp adds what Record (and RecordCorrected) just recorded to
// operation type op, with misses, the replies that found nothing (a null or
// an empty array); corrected is 0 for closed-loop runs. Call it right after
// Record.
func (r *Recorder) RecordOp(op int, lat, corrected time.Duration, ops, failed, misses int) {
	if r.lastWarm {
		return
	}
	r.cur.misses += int64(misses)
	if r.ops == nil || op < 0 || op >= len(r.ops) {
		return
	}
	p := &r.ops[op]
	r.add(clampUS(lat), op, false)
	p.c.samples++
	p.c.requests++
	p.c.ops += int64(ops)
	p.c.errors += int64(failed)
	p.c.misses += int64(misses)
	p.c.sumNS += int64(lat)
	if corrected > 0 && r.corrected {
		r.add(clampUS(corrected), op, true)
		p.c.sumCorrectedNS += int64(corrected)
	}
}

// Bytes adds a request's bytes sent and read, after RecordOp.
func (r *Recorder) Bytes(op, out, in int) {
	if r.lastWarm || (out == 0 && in == 0) {
		return
	}
	r.cur.bytesOut += int64(out)
	r.cur.bytesIn += int64(in)
	if r.ops != nil && op >= 0 && op < len(r.ops) {
		r.ops[op].c.bytesOut += int64(out)
		r.ops[op].c.bytesIn += int64(in)
	}
}

// LostOp counts the commands of a request of operation type op that was
// lost on its connection at now (before Error counts them in the totals
// and hands the interval on).
func (r *Recorder) LostOp(now time.Time, op, commands int) {
	if r.ops == nil || op < 0 || op >= len(r.ops) || now.Before(r.agg.start) {
		return
	}
	r.moveTo(now)
	r.ops[op].c.errors += int64(commands)
}

// Record records one request of ops commands that completed at end after lat.
// failed is the number of its commands whose reply was an error.
func (r *Recorder) Record(end time.Time, lat time.Duration, ops, failed int) {
	r.lastWarm = end.Before(r.agg.start)
	if r.lastWarm {
		r.warmOps += int64(ops)
		return
	}
	if !end.Before(r.nextFlush) {
		r.flushAt(end)
	}
	us := lat.Microseconds()
	if us > HighestUS {
		r.cur.overflow++
		us = HighestUS
	}
	r.add(max(us, 0), -1, false)
	at := int64(end.Sub(r.agg.start)) + 1
	if r.cur.firstNS == 0 {
		r.cur.firstNS, r.cur.lastNS = at, at
	} else {
		r.cur.firstNS, r.cur.lastNS = min(r.cur.firstNS, at), max(r.cur.lastNS, at)
	}
	if r.agg.slotNS > 0 && failed < ops {
		r.cur.slots.mark(at-1-int64(r.index)*int64(r.agg.interval), r.agg.slotNS)
	}
	r.cur.samples++
	r.cur.requests++
	r.cur.ops += int64(ops)
	r.cur.errors += int64(failed)
	r.cur.sumNS += int64(lat)
}

// RecordCorrected records the latency of the request Record just recorded,
// measured from its intended start (open-loop runs only).
func (r *Recorder) RecordCorrected(lat time.Duration) {
	if !r.corrected || r.lastWarm {
		return
	}
	r.add(clampUS(lat), -1, true)
	r.cur.sumCorrectedNS += int64(lat)
}

// Behind counts a request that started by late after its intended time
// because the worker was still waiting for the previous reply, or, when
// down, for a connection (a failure, its back-off and reconnects).
func (r *Recorder) Behind(intended time.Time, late time.Duration, down bool) {
	if intended.Before(r.agg.start) {
		return
	}
	r.cur.behind++
	if down {
		r.cur.behindDown++
	}
	r.cur.behindNS += int64(late)
	r.cur.behindMaxNS = max(r.cur.behindMaxNS, int64(late))
}

// ClientLag counts a scheduled send whose worker woke late: the client,
// not the server, fell behind.
func (r *Recorder) ClientLag(now time.Time, late time.Duration) {
	if now.Before(r.agg.start) {
		return
	}
	r.cur.lags++
	r.cur.lagMaxNS = max(r.cur.lagMaxNS, int64(late))
}

// Late counts the commands of a request that completed after the run's
// deadline: they reached the server but are outside the measured time.
func (r *Recorder) Late(ops int) { r.cur.late += int64(ops) }

// Schedule counts, once an open loop ends, its requests of the measured
// time sent and those due in it that were never sent: for want of a
// connection when down, else held back while replies were awaited.
func (r *Recorder) Schedule(sent, notSent int64, down bool) {
	r.cur.sent += sent
	r.cur.notSent += notSent
	if down {
		r.cur.notSentDown += notSent
	}
}

// Error counts one failure at now: kind says what failed, msg is the
// message (it may be a view into a reused buffer), commands is how many
// commands failed with it (0 for a connect attempt). Error replies are
// counted in the totals by Record; Error groups them. Messages are grouped
// by kind and Normalize; each group keeps its first message verbatim.
func (r *Recorder) Error(now time.Time, kind Kind, msg []byte, commands int) {
	if now.Before(r.agg.start) {
		return
	}
	r.moveTo(now)
	n := int64(commands)
	switch kind {
	case Reply: // Record counted them with the request
	case Lost:
		r.cur.transport++
		r.cur.errors += n
		r.cur.lost += n
	case Connect:
		r.cur.connectFailures++
		n = 1
	}
	r.norm = append(r.norm[:0], byte(kind))
	r.norm = Normalize(r.norm, msg)
	if kind != Reply {
		// A lost request or failed connect is followed by a back-off and
		// waits: the interval's line has it at once.
		defer r.flushAt(now)
	}
	if g, ok := r.errs[string(r.norm)]; ok { // no allocation on lookup
		g.count += n
		return
	}
	key := string(r.norm)
	if len(r.errs) >= maxDistinctErrors {
		key = string([]byte{byte(kind)}) + otherErrors
		if g, ok := r.errs[key]; ok {
			g.count += n
			return
		}
	}
	if r.errs == nil { // most recorders never see an error
		r.errs = map[string]*group{}
	}
	r.errs[key] = &group{count: n, example: string(msg)}
}

// Retried counts commands a request sent again before its outcome.
func (r *Recorder) Retried(commands int) {
	if !time.Now().Before(r.agg.start) {
		r.cur.retried += int64(commands)
	}
}

// Aborted counts one aborted transaction.
func (r *Recorder) Aborted() {
	if !time.Now().Before(r.agg.start) {
		r.cur.aborted++
	}
}

// flushAt hands the current interval to the aggregator and starts the
// interval that contains now.
func (r *Recorder) flushAt(now time.Time) {
	if len(r.buf) > 0 {
		r.agg.addSamples(r.index, r.buf)
		r.buf = r.buf[:0]
	}
	r.agg.merge(r.index, r.cur, r.errs, r.warmOps, r.ops)
	for i := range r.ops {
		r.ops[i].reset()
	}
	r.cur = counters{}
	for _, g := range r.errs {
		g.count = 0
	}
	r.warmOps = 0
	r.index = r.agg.indexOf(now)
	r.nextFlush = r.agg.start.Add(time.Duration(r.index+1) * r.agg.interval)
}

// Flush hands everything recorded so far to the aggregator. Workers call it
// when they stop.
func (r *Recorder) Flush() { r.flushAt(time.Now()) }

// moveTo makes the interval that holds now the recorder's current one,
// handing the current one over first, also when now is in an earlier one
// (a failure dated back to the measured time's end, once the recorder
// moved past it): a rare event's, not every request's.
func (r *Recorder) moveTo(now time.Time) {
	if !now.Before(r.nextFlush) || r.agg.indexOf(now) != r.index {
		r.flushAt(now)
	}
}

// FlushIfDue hands the recordings of an interval that has ended by now to
// the aggregator (a worker calls it before a wait that may outlast the
// interval, so that the interval's line has them); nothing otherwise.
func (r *Recorder) FlushIfDue(now time.Time) {
	if !now.Before(r.nextFlush) {
		r.flushAt(now)
	}
}

type interval struct {
	c         counters
	hist      *hdr.Histogram
	corrected *hdr.Histogram
	ops       []opPart
	closed    bool
	sum       result.Interval
	// kept is the interval's latency histogram, encoded (KeepSeconds);
	// kinds its errors by class (ErrorClass).
	kept  string
	kinds map[string]int64
}

// Aggregator merges the recorders' intervals. Its methods are safe for
// concurrent use.
type Aggregator struct {
	mu       sync.Mutex
	start    time.Time
	interval time.Duration
	total    *hdr.Histogram
	// totalCorrected is the open-loop latency from the intended start (nil
	// for closed-loop runs).
	totalCorrected *hdr.Histogram
	totals         counters
	warmOps        int64
	errs           map[string]*result.ErrorCount
	errOrder       []string
	series         map[int]*interval
	maxIndex       int
	// opNames names the operation types of a mixed run; ops are their totals.
	opNames []string
	ops     []opPart
	// keepTotals makes every Tick hand out copies of the cumulative
	// histograms (for a live metrics endpoint).
	keepTotals bool
	// spare holds the closed intervals' histograms for the next ones.
	spare histPool
	// slotNS, above 0 (KeepSeconds), is the width of a reply slot.
	slotNS int64
}

// Slots marks the 128ths of an interval in which a request got a reply
// that was no error (bit i of word i/64).
type Slots [2]uint64

// SlotsPerInterval is how many slots an interval has.
const SlotsPerInterval = 128

// mark marks the slot of a reply off ns into its interval.
func (s *Slots) mark(off, slotNS int64) {
	i := off / slotNS
	i = max(0, min(i, SlotsPerInterval-1))
	s[i>>6] |= 1 << (i & 63)
}

// Has says whether slot i holds a reply.
func (s Slots) Has(i int) bool { return s[i>>6]&(1<<(i&63)) != 0 }

// KeepSeconds makes the aggregator keep, for each interval, its latency
// histogram (from the intended start in an open loop; encoded when the
// interval closes, one encoding a tick) and the slots in which replies
// came (Snapshot.Seconds): what scores an event inside a run. Call it
// before NewRecorder.
func (a *Aggregator) KeepSeconds() { a.slotNS = max(1, int64(a.interval)/SlotsPerInterval) }

// KeepTotals makes each Tick's Progress carry copies of the cumulative
// histograms (Totals): one copy a tick, none per request.
func (a *Aggregator) KeepTotals() { a.keepTotals = true }

// Totals are copies of a run's cumulative histograms at one tick.
type Totals struct {
	// Service is latency from the send; Corrected from the intended start
	// (nil for closed-loop runs).
	Service, Corrected *hdr.Histogram
	// Ops are the operation types' service histograms, named by OpNames;
	// OpsCorrected their histograms from the intended start (nil entries
	// for closed-loop runs).
	Ops, OpsCorrected []*hdr.Histogram
	OpNames           []string
	// OpCounts and OpErrors are the operation types' commands and errors.
	OpCounts, OpErrors []int64
	// Requests counts round trips; Transport lost requests.
	Requests, Transport int64
}

func copyHist(h *hdr.Histogram) *hdr.Histogram {
	if h == nil {
		return nil
	}
	return h.Clone() // one copy of the counts (Import(Export()) made two)
}

func (a *Aggregator) totalsLocked() *Totals {
	t := &Totals{Service: copyHist(a.total), Corrected: copyHist(a.totalCorrected), OpNames: a.opNames,
		Requests: a.totals.requests, Transport: a.totals.transport}
	for i := range a.ops {
		t.Ops = append(t.Ops, copyHist(a.ops[i].hist))
		t.OpsCorrected = append(t.OpsCorrected, copyHist(a.ops[i].corrected))
		t.OpCounts = append(t.OpCounts, a.ops[i].c.ops)
		t.OpErrors = append(t.OpErrors, a.ops[i].c.errors)
	}
	return t
}

// NewAggregator returns an aggregator whose measurement starts at start
// (samples before it count as warm-up) with the given tick.
func NewAggregator(start time.Time, tick time.Duration) *Aggregator {
	if tick <= 0 {
		tick = time.Second
	}
	return &Aggregator{
		start:    start,
		interval: tick,
		total:    NewHistogram(),
		errs:     map[string]*result.ErrorCount{},
		series:   map[int]*interval{},
		maxIndex: -1,
	}
}

// EnableCorrected makes the aggregator keep a second histogram, of latency
// from the intended start (open-loop runs). Call it before NewRecorder.
func (a *Aggregator) EnableCorrected() { a.totalCorrected = NewHistogram() }

// SetOperations splits the run by operation type (a mixed run); names are
// the types, indexed as RecordOp's op. Call it before NewRecorder. One
// name, or none, keeps the run unsplit.
func (a *Aggregator) SetOperations(names []string) {
	if len(names) < 2 {
		return
	}
	a.opNames = names
	a.ops = make([]opPart, len(names))
}

// Start returns the start of measurement.
func (a *Aggregator) Start() time.Time { return a.start }

// NewRecorder returns a recorder for one worker.
func (a *Aggregator) NewRecorder() *Recorder {
	r := &Recorder{agg: a, buf: make([]sample, 0, sampleBuffer), corrected: a.totalCorrected != nil}
	if a.opNames != nil {
		r.ops = make([]opPart, len(a.opNames))
	}
	r.index = a.indexOf(time.Now())
	r.nextFlush = a.start.Add(time.Duration(r.index+1) * a.interval)
	return r
}

// addSamples records a recorder's buffered latencies of interval index
// into the run's histograms and the interval's (unless already closed).
func (a *Aggregator) addSamples(index int, buf []sample) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var iv *interval
	if index >= 0 {
		iv = a.intervalLocked(index)
		if iv.closed {
			iv = nil
		}
	}
	for _, s := range buf {
		if s.op >= 0 { // an operation type's copy of a request already recorded in total
			if int(s.op) < len(a.ops) {
				a.ops[s.op].record(s, &a.spare)
				if iv != nil {
					iv.ops[s.op].record(s, &a.spare)
				}
			}
			continue
		}
		v := int64(s.us)
		if s.corrected {
			_ = a.totalCorrected.RecordValue(v)
			if iv != nil {
				_ = iv.corrected.RecordValue(v)
			}
		} else {
			_ = a.total.RecordValue(v)
			if iv != nil {
				_ = iv.hist.RecordValue(v)
			}
		}
	}
	if index > a.maxIndex {
		a.maxIndex = index
	}
}

// intervalLocked returns interval index, creating it.
func (a *Aggregator) intervalLocked(index int) *interval {
	iv := a.series[index]
	if iv == nil {
		iv = &interval{hist: a.spare.get()}
		if a.totalCorrected != nil {
			iv.corrected = a.spare.get()
		}
		if a.opNames != nil {
			iv.ops = make([]opPart, len(a.opNames))
		}
		a.series[index] = iv
	}
	return iv
}

// IntervalEnd is the end of the interval that holds t (the measured
// time's start when t is before it).
func (a *Aggregator) IntervalEnd(t time.Time) time.Time {
	return a.start.Add(time.Duration(a.indexOf(t)+1) * a.interval)
}

func (a *Aggregator) indexOf(t time.Time) int {
	if t.Before(a.start) {
		return -1
	}
	return int(t.Sub(a.start) / a.interval)
}

func (a *Aggregator) merge(index int, c counters, errs map[string]*group, warm int64, ops []opPart) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.warmOps += warm
	for key, g := range errs {
		if g.count == 0 {
			continue
		}
		e, ok := a.errs[key]
		if !ok {
			e = &result.ErrorCount{Kind: Kind(key[0]).String(), Message: key[1:], Example: g.example}
			a.errs[key] = e
			a.errOrder = append(a.errOrder, key)
		}
		e.Count += g.count
		if a.slotNS > 0 && index >= 0 {
			iv := a.intervalLocked(index)
			if iv.kinds == nil {
				iv.kinds = map[string]int64{}
			}
			iv.kinds[ErrorClass(Kind(key[0]), key[1:])] += g.count
		}
	}
	// After the deadline, and the schedule's counts: the run's, no second's.
	a.totals.late += c.late
	a.totals.sent += c.sent
	a.totals.notSent += c.notSent
	a.totals.notSentDown += c.notSentDown
	c.late, c.sent, c.notSent, c.notSentDown = 0, 0, 0, 0
	if c.empty() && opsEmpty(ops) {
		return
	}
	a.totals.add(c)
	for i := range ops {
		a.ops[i].c.add(ops[i].c)
	}
	if index < 0 {
		return
	}
	iv := a.intervalLocked(index)
	iv.c.add(c)
	for i := range ops {
		iv.ops[i].c.add(ops[i].c)
	}
	if index > a.maxIndex {
		a.maxIndex = index
	}
}

func summarize(index int, c counters, h, corrected *hdr.Histogram, tick time.Duration) result.Interval {
	iv := result.Interval{Second: index, Ops: c.ops, Requests: c.requests, Errors: c.errors,
		OpsPerSec: float64(c.ops) / tick.Seconds()}
	if c.samples > 0 {
		f := func(v float64) *float64 { return &v }
		iv.MeanUS = f(float64(c.sumNS) / float64(c.samples) / 1e3)
		iv.P50US = f(float64(h.ValueAtQuantile(50)))
		iv.P99US = f(float64(h.ValueAtQuantile(99)))
		iv.MaxUS = f(float64(h.Max()))
		if corrected != nil && corrected.TotalCount() > 0 {
			iv.CorrectedP50US = f(float64(corrected.ValueAtQuantile(50)))
			iv.CorrectedP99US = f(float64(corrected.ValueAtQuantile(99)))
			iv.CorrectedMaxUS = f(float64(corrected.Max()))
		}
	}
	return iv
}

// Close summarizes interval index and keeps its histograms for the
// intervals that follow (histPool); later merges into it update only its
// counts. It returns the summary.
func (a *Aggregator) Close(index int) result.Interval {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.closeLocked(index)
}

func (a *Aggregator) closeLocked(index int) result.Interval {
	iv := a.series[index]
	if iv == nil {
		iv = &interval{}
		a.series[index] = iv
	}
	if !iv.closed {
		iv.sum = summarize(index, iv.c, iv.hist, iv.corrected, a.interval)
		if a.opNames != nil {
			if iv.ops == nil {
				iv.ops = make([]opPart, len(a.opNames))
			}
			iv.sum.Operations = make([]result.IntervalOperation, len(a.opNames))
			for i, name := range a.opNames {
				o := result.IntervalOperation{Name: name}
				if p := &iv.ops[i]; p.c.samples > 0 && p.hist != nil {
					f := func(v float64) *float64 { return &v }
					o.MeanUS = f(float64(p.c.sumNS) / float64(p.c.samples) / 1e3)
					o.P50US = f(float64(p.hist.ValueAtQuantile(50)))
					o.P99US = f(float64(p.hist.ValueAtQuantile(99)))
				}
				iv.sum.Operations[i] = o
				a.spare.put(iv.ops[i].hist)
				a.spare.put(iv.ops[i].corrected)
				iv.ops[i].hist, iv.ops[i].corrected = nil, nil
			}
		}
		iv.closed = true
		if a.slotNS > 0 {
			iv.kept = keep(iv.hist, iv.corrected)
		}
		a.spare.put(iv.hist)
		a.spare.put(iv.corrected)
		iv.hist, iv.corrected = nil, nil
	}
	s := iv.sum
	if s.Operations != nil {
		s.Operations = append([]result.IntervalOperation(nil), s.Operations...)
		for i := range s.Operations {
			s.Operations[i].Ops, s.Operations[i].Errors, s.Operations[i].Misses = iv.ops[i].c.ops, iv.ops[i].c.errors, iv.ops[i].c.misses
		}
	}
	s.Ops, s.Requests, s.Errors = iv.c.ops, iv.c.requests, iv.c.errors
	s.TransportErrors, s.ConnectFailures = iv.c.transport, iv.c.connectFailures
	s.Behind = iv.c.behind
	s.OpsPerSec = float64(iv.c.ops) / a.interval.Seconds()
	return s
}

// Progress is a running summary for a progress line.
type Progress struct {
	// Totals, with Aggregator.KeepTotals, are the cumulative histograms.
	Totals    *Totals
	Interval  result.Interval
	TotalOps  int64
	Errors    int64
	MeanUS    float64
	P99US     float64
	Elapsed   time.Duration
	OpsPerSec float64
}

// Tick closes interval index and returns the progress so far.
func (a *Aggregator) Tick(index int) Progress {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := Progress{Interval: a.closeLocked(index), TotalOps: a.totals.ops, Errors: a.totals.errors,
		Elapsed: time.Duration(index+1) * a.interval}
	if a.totals.samples > 0 {
		p.MeanUS = float64(a.totals.sumNS) / float64(a.totals.samples) / 1e3
		p.P99US = float64(a.total.ValueAtQuantile(99))
	}
	p.OpsPerSec = float64(a.totals.ops) / p.Elapsed.Seconds()
	if a.keepTotals {
		p.Totals = a.totalsLocked()
	}
	return p
}

// Snapshot is the merged state at the end of a run.
type Snapshot struct {
	Totals    result.Totals
	Errors    []result.ErrorCount
	Series    []result.Interval
	Histogram *hdr.Histogram
	// Corrected is the histogram of latency from the intended start (open-loop runs; nil otherwise).
	Corrected *hdr.Histogram
	// Operations splits a mixed run by operation type (nil otherwise);
	// OpHistograms holds each one's latency histogram (nil when it got no
	// reply), for the run layer to encode with the others.
	Operations   []result.Operation
	OpHistograms []*hdr.Histogram
	// OpCorrected holds each one's histogram from the intended start
	// (open-loop runs; nil otherwise).
	OpCorrected []*hdr.Histogram
	// Silent lists the whole intervals of the measured time in which no
	// request got a reply.
	Silent []int
	// SilentTime is how long the stretches of Silent intervals went
	// without a reply, each from the last reply before it (or the
	// measured time's start) to the first after it (or its end).
	SilentTime time.Duration
	// Seconds holds, with KeepSeconds, each interval of Series' own
	// histogram and reply slots (nil otherwise).
	Seconds []Second
}

// Second is one interval as KeepSeconds keeps it.
type Second struct {
	// Histogram is its latency (from the intended start in an open
	// loop), encoded as results encode theirs ("" when no reply).
	Histogram string
	// Slots marks where in it replies that were no error came.
	Slots Slots
	// Errors counts its errors by class (ErrorClass; nil: none).
	Errors map[string]int64
}

// errorClasses are the error replies whose first word names what a
// topology change does to a client.
var errorClasses = []string{"MOVED", "ASK", "TRYAGAIN", "LOADING", "READONLY", "CLUSTERDOWN", "MASTERDOWN", "BUSY", "OOM"}

// ErrorClass names an error's class for the per-second counts: the error
// reply's first word when it is one of a topology's (MOVED, READONLY,
// LOADING, ...), "reply" for another; "timeout" or "connection" for a
// request lost on its connection; "connect" for a failed connect.
func ErrorClass(k Kind, msg string) string {
	switch k {
	case Connect:
		return "connect"
	case Lost:
		if strings.Contains(msg, "timeout") || strings.Contains(msg, "deadline") || strings.Contains(msg, "no reply") {
			return "timeout"
		}
		return "connection"
	}
	word, _, _ := strings.Cut(msg, " ")
	for _, c := range errorClasses {
		if word == c {
			return c
		}
	}
	return "reply"
}

// keep encodes an interval's histogram: from the intended start when it
// has one.
func keep(h, corrected *hdr.Histogram) string {
	if corrected != nil && corrected.TotalCount() > 0 {
		h = corrected
	}
	if h == nil || h.TotalCount() == 0 {
		return ""
	}
	return result.EncodeHistogram(h)
}

// Snapshot returns the merged totals over elapsed measured time.
func (a *Aggregator) Snapshot(elapsed time.Duration) Snapshot {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.totals
	t := result.Totals{
		Ops: c.ops, Requests: c.requests, Errors: c.errors, TransportErrors: c.transport, ConnectFailures: c.connectFailures,
		LostOps: c.lost, Misses: c.misses, BytesIn: c.bytesIn, BytesOut: c.bytesOut,
		Aborted: c.aborted, Retried: c.retried, Overflow: c.overflow, WarmupOps: a.warmOps, AfterDeadlineOps: c.late, LatencyUnit: "us",
		HistogramRangeUS: HighestUS,
	}
	if elapsed > 0 {
		t.OpsPerSec = float64(c.ops) / elapsed.Seconds()
		t.RequestsPerSec = float64(c.requests) / elapsed.Seconds()
	}
	if attempts := c.ops + c.lost; attempts > 0 {
		t.ErrorRate = float64(c.errors) / float64(attempts)
	}
	if c.samples > 0 {
		t.Latency = latency(a.total, c.sumNS, c.samples)
		if a.totalCorrected != nil && a.totalCorrected.TotalCount() > 0 {
			l := latency(a.totalCorrected, c.sumCorrectedNS, a.totalCorrected.TotalCount())
			t.CorrectedLatency = &l
		}
	}
	t.HeadlineLatency = result.FromSend
	if a.totalCorrected != nil {
		t.HeadlineLatency = result.FromIntendedStart
		t.Schedule = &result.Schedule{Behind: c.behind, BehindDown: c.behindDown, BehindMaxMS: float64(c.behindMaxNS) / 1e6,
			ClientLags: c.lags, ClientLagMaxMS: float64(c.lagMaxNS) / 1e6,
			Sent: c.sent, NotSent: c.notSent, NotSentNoConnection: c.notSentDown}
		if c.behind > 0 {
			t.Schedule.BehindMeanMS = float64(c.behindNS) / float64(c.behind) / 1e6
		}
	}
	s := Snapshot{Totals: t, Histogram: copyHist(a.total)}
	if a.totalCorrected != nil {
		s.Corrected = copyHist(a.totalCorrected)
	}
	for i, name := range a.opNames {
		p := &a.ops[i]
		o := result.Operation{Name: name, Ops: p.c.ops, Requests: p.c.requests, Errors: p.c.errors, Misses: p.c.misses,
			BytesIn: p.c.bytesIn, BytesOut: p.c.bytesOut}
		if elapsed > 0 {
			o.OpsPerSec = float64(p.c.ops) / elapsed.Seconds()
		}
		if p.c.samples > 0 && p.hist != nil {
			o.Latency = latency(p.hist, p.c.sumNS, p.c.samples)
			if p.corrected != nil && p.corrected.TotalCount() > 0 {
				l := latency(p.corrected, p.c.sumCorrectedNS, p.corrected.TotalCount())
				o.CorrectedLatency = &l
			}
		}
		s.Operations = append(s.Operations, o)
		var h *hdr.Histogram
		if p.c.samples > 0 && p.hist != nil {
			h = copyHist(p.hist)
		}
		s.OpHistograms = append(s.OpHistograms, h)
		var hc *hdr.Histogram
		if p.corrected != nil && p.corrected.TotalCount() > 0 {
			hc = copyHist(p.corrected)
		}
		s.OpCorrected = append(s.OpCorrected, hc)
	}
	for _, key := range a.errOrder {
		s.Errors = append(s.Errors, *a.errs[key])
	}
	sort.SliceStable(s.Errors, func(i, j int) bool { return s.Errors[i].Count > s.Errors[j].Count })
	// One row for every interval of the measured time, empty ones included.
	rows := int((elapsed + a.interval - 1) / a.interval)
	for i := 0; i < max(rows, a.maxIndex+1); i++ {
		iv := a.closeLocked(i)
		iv.EndInside(elapsed-time.Duration(i)*a.interval, a.interval)
		s.Series = append(s.Series, iv)
		if a.slotNS > 0 {
			s.Seconds = append(s.Seconds, Second{Histogram: a.series[i].kept, Slots: a.series[i].c.slots, Errors: a.series[i].kinds})
		}
		if time.Duration(i+1)*a.interval <= elapsed && iv.Requests == 0 {
			s.Silent = append(s.Silent, i)
		}
	}
	s.SilentTime = a.silentTimeLocked(s.Silent, elapsed)
	return s
}

// silentTimeLocked measures the stretches of silent intervals to the
// replies around them: a stretch from interval i to j runs from the last
// reply of interval i-1 to the first of interval j+1.
func (a *Aggregator) silentTimeLocked(silent []int, elapsed time.Duration) time.Duration {
	var total time.Duration
	for k := 0; k < len(silent); {
		j := k
		for j+1 < len(silent) && silent[j+1] == silent[j]+1 {
			j++
		}
		from, to := time.Duration(0), elapsed
		if iv := a.series[silent[k]-1]; iv != nil && iv.c.lastNS > 0 {
			from = time.Duration(iv.c.lastNS - 1)
		}
		if iv := a.series[silent[j]+1]; iv != nil && iv.c.firstNS > 0 {
			to = time.Duration(iv.c.firstNS - 1)
		}
		total += max(0, min(to, elapsed)-from)
		k = j + 1
	}
	return total
}

func latency(h *hdr.Histogram, sumNS, n int64) result.Latency {
	return Summary(h, float64(sumNS)/float64(n)/1e3)
}

// Summary is a histogram's latency summary (µs) with the given mean (the
// histogram's own mean is rounded to its buckets).
func Summary(h *hdr.Histogram, meanUS float64) result.Latency {
	return result.Latency{
		Min:  float64(h.Min()),
		Mean: meanUS,
		P50:  float64(h.ValueAtQuantile(50)),
		P90:  float64(h.ValueAtQuantile(90)),
		P99:  float64(h.ValueAtQuantile(99)),
		P999: float64(h.ValueAtQuantile(99.9)),
		Max:  float64(h.Max()),
	}
}
