package cmdtmpl

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
)

// Dist is the distribution a range draws from.
type Dist uint8

const (
	// Uniform draws every value of [0, Max) with equal probability.
	Uniform Dist = iota
	// Zipf draws value 0 most often, then 1, … (YCSB's zipfian, theta 0.99 by default).
	Zipf
	// Seq walks 0, 1, 2, … Max-1, 0, … with one counter shared by all workers.
	Seq
	// Gauss draws from a normal distribution (Mean, StdDev; by default the
	// middle of the range and a sixth of it), redrawn when outside the range.
	Gauss
	// Part walks its own slice of the range, sequentially: generator i of
	// n (NewGenPart) walks [i·Max/n, (i+1)·Max/n) (memtier's P pattern).
	Part
	// Power draws k with probability proportional to (k+1)^-Theta, Theta
	// above 1 (resp-benchmark's zipfian: 1.03), by the standard library's
	// rejection-inversion sampler.
	Power
)

// String returns the distribution's flag name.
func (d Dist) String() string {
	switch d {
	case Zipf:
		return "zipf"
	case Seq:
		return "seq"
	case Gauss:
		return "gauss"
	case Part:
		return "part"
	case Power:
		return "power"
	default:
		return "uniform"
	}
}

// Range is one named range: values in [0, Max).
type Range struct {
	Max   uint64  `json:"max"`
	Dist  Dist    `json:"-"`
	Theta float64 `json:"theta,omitempty"`
	// Pad writes values with at least this many digits, zero-padded
	// (redis-benchmark's __rand_int__ has 12).
	Pad int `json:"pad,omitempty"`
	// Offset is added to every value drawn: the range is then
	// [Offset, Offset+Max) (memtier's --key-minimum).
	Offset uint64 `json:"offset,omitempty"`
	// Mean and StdDev shape the Gauss distribution (0: the defaults).
	Mean   float64 `json:"mean,omitempty"`
	StdDev float64 `json:"stddev,omitempty"`
}

// String renders a range as accepted by ParseRange ("1000:zipf:0.99").
func (r Range) String() string {
	s := strconv.FormatUint(r.Max, 10)
	if r.Dist != Uniform {
		s += ":" + r.Dist.String()
	}
	if (r.Dist == Zipf || r.Dist == Power) && r.Theta != 0 {
		s += ":" + strconv.FormatFloat(r.Theta, 'g', -1, 64)
	}
	return s
}

// ParseRange parses "MAX[:uniform|zipf[:THETA]|seq]".
func ParseRange(s string) (Range, error) {
	parts := strings.Split(s, ":")
	max, err := strconv.ParseUint(parts[0], 10, 64)
	if err != nil || max == 0 {
		return Range{}, fmt.Errorf("range %q: the size must be a whole number above 0", s)
	}
	r := Range{Max: max}
	if len(parts) > 1 {
		switch strings.ToLower(parts[1]) {
		case "uniform", "":
		case "zipf", "zipfian":
			r.Dist, r.Theta = Zipf, 0.99
			if len(parts) > 2 {
				th, err := strconv.ParseFloat(parts[2], 64)
				if err != nil || th <= 0 || th >= 1 {
					return Range{}, fmt.Errorf("range %q: zipf theta must be in (0, 1)", s)
				}
				r.Theta = th
			}
		case "seq", "sequential":
			r.Dist = Seq
		case "power":
			r.Dist, r.Theta = Power, 1.03
			if len(parts) > 2 {
				ex, err := strconv.ParseFloat(parts[2], 64)
				if err != nil || ex <= 1 || ex > 100 {
					return Range{}, fmt.Errorf("range %q: the power law's exponent must be above 1", s)
				}
				r.Theta = ex
			}
		default:
			return Range{}, fmt.Errorf("range %q: unknown distribution %q (uniform, zipf, power, seq)", s, parts[1])
		}
	}
	if len(parts) > 3 || (len(parts) == 3 && r.Dist != Zipf && r.Dist != Power) {
		return Range{}, fmt.Errorf("range %q: too many parts", s)
	}
	return r, nil
}

// Options configure how a template is expanded.
type Options struct {
	// Ranges[n] is the range of __RANDn__ (Ranges[1] is __RAND__).
	Ranges [MaxRanges + 1]Range
	// DataSize is the length of __DATA__ values in bytes.
	DataSize int
	// DataMax, when above DataSize, makes __DATA__ values DataSize to
	// DataMax bytes long: drawn at random, or with DataSeq one size after
	// the other (memtier's --data-size-range and --data-size-pattern S).
	DataMax int
	DataSeq bool
}

// Program is a template bound to its options: the shared, immutable part of
// expansion. Create one Gen per worker with NewGen.
type Program struct {
	t       *Template
	opts    Options
	samples [MaxRanges + 1]sampler
	seq     [MaxRanges + 1]*atomic.Uint64
	// data is the pool __DATA__ values are cut from, shared read-only by
	// every Gen (one pool for all workers stays in the CPU's cache).
	data []byte
	// head is a request's array header ("*3\r\n"); dataHead is a __DATA__
	// value's bulk header ("$64\r\n") when every value has one size.
	head, dataHead []byte
	// width[i] is the number of digits of argument i's longest possible
	// value's length: AppendRESP writes the value after a header that wide.
	width []int
}

// Compile checks that every range the template uses has a size and prepares
// the distributions.
func Compile(t *Template, opts Options) (*Program, error) {
	p := &Program{t: t, opts: opts}
	for n := 1; n <= MaxRanges; n++ {
		if !t.ranges[n] {
			continue
		}
		r := opts.Ranges[n]
		if r.Max == 0 {
			return nil, fmt.Errorf("template uses %s but its range is not set", placeholderName(n))
		}
		switch r.Dist {
		case Zipf:
			p.samples[n] = NewZipfian(r.Max, r.Theta)
		case Seq:
			p.seq[n] = new(atomic.Uint64)
		case Power:
			if !(r.Theta > 1) {
				return nil, fmt.Errorf("%s: the power law's exponent must be above 1, got %g", placeholderName(n), r.Theta)
			}
		}
	}
	if t.data && opts.DataSize < 0 {
		return nil, errors.New("data size must not be negative")
	}
	if t.data && max(opts.DataSize, opts.DataMax) > 512<<20 {
		return nil, errors.New("data size above 512 MiB")
	}
	if t.data {
		p.data = newDataPool(max(opts.DataSize, opts.DataMax) + dataPool)
		if opts.DataMax <= opts.DataSize {
			p.dataHead = fmt.Appendf(nil, "$%d\r\n", opts.DataSize)
		}
	}
	p.head = fmt.Appendf(nil, "*%d\r\n", len(t.args))
	p.width = make([]int, len(t.args))
	for i := range t.args {
		p.width[i] = digits(p.maxLen(&t.args[i]))
	}
	return p, nil
}

// maxLen is the length of argument a's longest possible value.
func (p *Program) maxLen(a *arg) uint64 {
	var n uint64
	for _, s := range a.segs {
		switch s.kind {
		case segLit:
			n += uint64(len(s.lit))
		case segRand, segRandPlus:
			r := &p.opts.Ranges[s.rng]
			top := r.Max - 1 + r.Offset
			if top < r.Offset { // the sum wrapped
				top = math.MaxUint64
			}
			n += uint64(max(digits(top), r.Pad))
		case segData:
			n += uint64(max(p.opts.DataSize, p.opts.DataMax))
		}
	}
	return n
}

// digits is the number of decimal digits of v.
func digits(v uint64) int {
	n := 1
	for ; v >= 10; v /= 10 {
		n++
	}
	return n
}

// Template returns the compiled template.
func (p *Program) Template() *Template { return p.t }

func placeholderName(n int) string {
	if n == 1 {
		return "__RAND__"
	}
	return fmt.Sprintf("__RAND%d__", n)
}

type sampler interface {
	Sample(r *rand.Rand) uint64
}

// Gen expands a Program for one worker. It is not safe for concurrent use.
type Gen struct {
	p   *Program
	rng *rand.Rand
	// part is each Part range's walk, made only when a range is one (240
	// bytes a generator otherwise spent at every connection).
	part *[MaxRanges + 1]partWalk
	// power is each Power range's sampler, drawing from rng (made only
	// when a range is one).
	power   *[MaxRanges + 1]*rand.Zipf
	nextLen int // the next __DATA__ length with Options.DataSeq
	data    []byte
	scratch []byte
	slots   []uint64
	have    []bool
	ends    []int
	// drawn holds where each argument of the drawn command is (Draw).
	drawn []span
}

// span locates one drawn argument's value: the literal of the template, a
// slice of the generator's buffer, or a slice of the __DATA__ pool.
type span struct {
	src    uint8
	lo, hi int32
}

const (
	srcLit uint8 = iota
	srcBuf
	srcData
)

const dataPool = 64 << 10

// partWalk is a generator's own slice [lo, hi) of a Part range.
type partWalk struct{ lo, hi, next uint64 }

// NewGen returns a generator seeded with seed. Two Gens with the same seed
// (and no Seq ranges) produce the same commands.
func (p *Program) NewGen(seed uint64) *Gen { return p.NewGenPart(seed, 0, 1) }

// NewGenPart returns generator part of parts: Part ranges walk that part's
// slice of the range; everything else is as NewGen.
func (p *Program) NewGenPart(seed uint64, part, parts int) *Gen {
	g := &Gen{
		p:     p,
		rng:   rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		slots: make([]uint64, p.t.slots),
		have:  make([]bool, p.t.slots),
	}
	parts = max(parts, 1)
	for n := 1; n <= MaxRanges; n++ {
		if r := p.opts.Ranges[n]; r.Dist == Part && r.Max > 0 {
			lo := r.Max * uint64(part) / uint64(parts)
			hi := max(r.Max*uint64(part+1)/uint64(parts), lo+1)
			if g.part == nil {
				g.part = new([MaxRanges + 1]partWalk)
			}
			g.part[n] = partWalk{lo: lo, hi: min(hi, r.Max), next: lo}
		}
	}
	for n := 1; n <= MaxRanges; n++ {
		if r := p.opts.Ranges[n]; r.Dist == Power && r.Max > 0 {
			if g.power == nil {
				g.power = new([MaxRanges + 1]*rand.Zipf)
			}
			g.power[n] = rand.NewZipf(g.rng, r.Theta, 1, r.Max-1)
		}
	}
	g.nextLen = p.opts.DataSize
	g.data = p.data
	return g
}

// newDataPool is size random alphanumerics.
func newDataPool(size int) []byte {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	rng := rand.New(rand.NewPCG(0x64617461, 0x706f6f6c))
	b := make([]byte, size)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return b
}

func (g *Gen) draw(n int) uint64 {
	r := &g.p.opts.Ranges[n]
	switch r.Dist {
	case Zipf:
		return g.p.samples[n].Sample(g.rng)
	case Seq:
		return (g.p.seq[n].Add(1) - 1) % r.Max
	case Gauss:
		mean, sd := r.Mean, r.StdDev
		if mean == 0 {
			mean = float64(r.Max-1) / 2
		}
		if sd == 0 {
			sd = float64(r.Max) / 6
		}
		for range 16 {
			if v := math.Round(mean + sd*g.rng.NormFloat64()); v >= 0 && v < float64(r.Max) {
				return uint64(v)
			}
		}
		return uint64(min(max(mean, 0), float64(r.Max-1)))
	case Power:
		return g.power[n].Uint64()
	case Part:
		w := &g.part[n]
		v := w.next
		if w.next++; w.next >= w.hi {
			w.next = w.lo
		}
		return v
	default:
		return g.rng.Uint64N(r.Max)
	}
}

// dataLen is the next __DATA__ value's length.
func (g *Gen) dataLen() int {
	o := &g.p.opts
	if o.DataMax <= o.DataSize {
		return o.DataSize
	}
	if !o.DataSeq {
		return o.DataSize + g.rng.IntN(o.DataMax-o.DataSize+1)
	}
	n := g.nextLen
	if g.nextLen++; g.nextLen > o.DataMax {
		g.nextLen = o.DataSize
	}
	return n
}

func (g *Gen) value(s *segment) uint64 {
	if s.slot < 0 {
		return g.draw(s.rng)
	}
	if !g.have[s.slot] {
		g.slots[s.slot] = g.draw(s.rng)
		g.have[s.slot] = true
	}
	return g.slots[s.slot]
}

func (g *Gen) appendArgValue(dst []byte, a *arg) []byte {
	for i := range a.segs {
		s := &a.segs[i]
		switch s.kind {
		case segLit:
			dst = append(dst, s.lit...)
		case segRand:
			r := &g.p.opts.Ranges[s.rng]
			v := g.value(s) + r.Offset
			if r.Pad > 0 {
				for d := digits(v); d < r.Pad; d++ {
					dst = append(dst, '0')
				}
			}
			dst = strconv.AppendUint(dst, v, 10)
		case segRandPlus: // rare: {range N W}'s end
			r := &g.p.opts.Ranges[s.rng]
			dst = appendPadded(dst, plusAtMost(g.value(s), s.add, r.Max-1)+r.Offset, r.Pad)
		case segData:
			lo, hi := g.dataSpan()
			dst = append(dst, g.data[lo:hi]...)
		}
	}
	return dst
}

// appendPadded writes v with at least pad digits, zero-padded.
func appendPadded(dst []byte, v uint64, pad int) []byte {
	for d := digits(v); d < pad; d++ {
		dst = append(dst, '0')
	}
	return strconv.AppendUint(dst, v, 10)
}

// plusAtMost is v+add, at most top (and never wrapped).
func plusAtMost(v, add, top uint64) uint64 {
	if top = max(v, top); add > top-v {
		return top
	}
	return v + add
}

func (g *Gen) reset() {
	for i := range g.have {
		g.have[i] = false
	}
}

// AppendRESP appends one expanded command, encoded as a RESP array of bulk
// strings, to dst. Values are written in place, not through a scratch copy.
func (g *Gen) AppendRESP(dst []byte) []byte {
	g.reset()
	p := g.p
	args := p.t.args
	dst = append(dst, p.head...)
	for i := range args {
		a := &args[i]
		switch {
		case a.enc != nil:
			dst = append(dst, a.enc...)
		case a.wholeData(): // a slice of the pool
			lo, hi := g.dataSpan()
			if p.dataHead == nil { // sizes vary
				dst = appendBulk(dst, g.data[lo:hi])
				break
			}
			dst = append(dst, p.dataHead...)
			dst = append(dst, g.data[lo:hi]...)
			dst = append(dst, '\r', '\n')
		default:
			dst = g.appendBulkArg(dst, a, p.width[i])
		}
	}
	return dst
}

// appendBulkArg appends argument a as a bulk string, expanding it in place
// after a length field w digits wide, then narrowing the field to the
// length's own digits (a move of the value only when they are fewer).
func (g *Gen) appendBulkArg(dst []byte, a *arg, w int) []byte {
	dst = append(dst, '$')
	at := len(dst)
	dst = append(dst, "00000000000000000000\r\n"[20-w:]...)
	start := len(dst)
	dst = g.appendArgValue(dst, a)
	n := len(dst) - start
	if d := digits(uint64(n)); d < w {
		copy(dst[at+d:], dst[at+w:])
		dst = dst[:len(dst)-(w-d)]
		w = d
	}
	for i := at + w - 1; i >= at; i-- {
		dst[i] = byte('0' + n%10)
		n /= 10
	}
	return append(dst, '\r', '\n')
}

// wholeData reports an argument that is __DATA__ alone.
func (a *arg) wholeData() bool { return len(a.segs) == 1 && a.segs[0].kind == segData }

// dataSpan draws the next __DATA__ value: bytes lo:hi of the pool.
func (g *Gen) dataSpan() (lo, hi int) {
	size := g.dataLen()
	lo = g.rng.IntN(len(g.data) - size + 1)
	return lo, lo + size
}

// appendBulk appends v as a RESP bulk string.
func appendBulk(dst, v []byte) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(v)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, v...)
	return append(dst, '\r', '\n')
}

// Draw expands one command without encoding it: Arg reads its arguments
// and AppendDrawn encodes it. A cluster client reads the key's slot this
// way before choosing which node's buffer the command goes to.
func (g *Gen) Draw() {
	g.reset()
	args := g.p.t.args
	g.scratch, g.drawn = g.scratch[:0], g.drawn[:0]
	for i := range args {
		a := &args[i]
		switch {
		case a.enc != nil:
			g.drawn = append(g.drawn, span{src: srcLit})
		case a.wholeData(): // a slice of the pool, no copy
			lo, hi := g.dataSpan()
			g.drawn = append(g.drawn, span{src: srcData, lo: int32(lo), hi: int32(hi)})
		default:
			lo := len(g.scratch)
			g.scratch = g.appendArgValue(g.scratch, a)
			g.drawn = append(g.drawn, span{src: srcBuf, lo: int32(lo), hi: int32(len(g.scratch))})
		}
	}
}

// Arg returns argument i (0 is the command name) of the command Draw
// expanded; it stays valid until the next call of a method of g.
func (g *Gen) Arg(i int) []byte {
	sp := g.drawn[i]
	switch sp.src {
	case srcBuf:
		return g.scratch[sp.lo:sp.hi]
	case srcData:
		return g.data[sp.lo:sp.hi]
	}
	return g.p.t.args[i].segs[0].lit
}

// AppendDrawn appends the command Draw expanded, encoded as a RESP array of
// bulk strings, to dst.
func (g *Gen) AppendDrawn(dst []byte) []byte {
	args := g.p.t.args
	dst = append(dst, g.p.head...)
	for i := range args {
		switch sp := g.drawn[i]; sp.src {
		case srcLit:
			dst = append(dst, args[i].enc...)
		case srcBuf:
			dst = appendBulk(dst, g.scratch[sp.lo:sp.hi])
		default:
			dst = appendBulk(dst, g.data[sp.lo:sp.hi])
		}
	}
	return dst
}

// AppendInline appends one expanded command in the inline protocol
// (arguments separated by spaces, then CRLF), as redis-benchmark's
// PING_INLINE sends it. Arguments must not hold spaces or line breaks.
func (g *Gen) AppendInline(dst []byte) []byte {
	g.reset()
	for i := range g.p.t.args {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = g.appendArgValue(dst, &g.p.t.args[i])
	}
	return append(dst, '\r', '\n')
}

// AppendArgs expands one command into buf (reused) and returns the
// arguments as slices of it in args (reused). The slices stay valid until
// the next call.
func (g *Gen) AppendArgs(buf []byte, args [][]byte) ([]byte, [][]byte) {
	g.reset()
	buf = buf[:0]
	args = args[:0]
	g.ends = g.ends[:0]
	for i := range g.p.t.args {
		buf = g.appendArgValue(buf, &g.p.t.args[i])
		g.ends = append(g.ends, len(buf))
	}
	start := 0
	for _, e := range g.ends {
		args = append(args, buf[start:e:e])
		start = e
	}
	return buf, args
}

// Expand returns one expanded command as strings (for tests and tools; it allocates).
func (g *Gen) Expand() []string {
	_, args := g.AppendArgs(nil, nil)
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(a)
	}
	return out
}

// RangeSpecs returns the ranges the template uses, keyed by placeholder
// name, in ParseRange's syntax (for recording in results).
func (p *Program) RangeSpecs() map[string]string {
	m := map[string]string{}
	for n := 1; n <= MaxRanges; n++ {
		if p.t.ranges[n] {
			m[placeholderName(n)] = p.opts.Ranges[n].String()
		}
	}
	return m
}
