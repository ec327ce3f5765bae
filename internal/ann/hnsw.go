package ann

import (
	"math"
	"math/rand/v2"
)

// HNSW is a hierarchical navigable small world graph (Malkov and
// Yashunin, 2016/2018), built as hnswlib builds it: a node's level is
// ⌊−ln U · mL⌋ with mL = 1/ln M; each level keeps at most M links (2M at
// level 0); a new node links to the neighbours the selection heuristic
// keeps among the efConstruct nearest found; a search descends greedily to
// level 0 and explores it with a beam of ef. Removed nodes stay in the
// graph as tombstones (routed through, never returned) until Compact.
type HNSW struct {
	st       store
	dist     Dist // ranks while building and searching
	exact    Dist // the distance Search reports
	m, m0    int
	efC      int
	mL       float64
	rng      *rand.Rand
	levels   []int8     // per slot; -1: no node
	links0   []uint32   // per slot, m0+1 words: count, then neighbours
	upper    [][]uint32 // per slot with level > 0: level × (m+1) words
	entry    uint32
	top      int // level of entry; -1 when the graph is empty
	nodes    int // nodes in the graph, tombstones included
	deleted  int
	maxLevel int
}

// NewHNSW returns an empty graph. m is the links per node above level 0
// (Tair's M), efConstruct the beam used while inserting; seed fixes the
// levels drawn, so one input order always builds one graph. rank orders
// vectors while building and searching (a faster sum may do); exact is
// the distance Search reports, its hits re-sorted by it (nil: rank).
func NewHNSW(dims int, rank, exact Dist, m, efConstruct int, seed uint64) *HNSW {
	m = max(m, 1)
	if exact == nil {
		exact = rank
	}
	return &HNSW{st: store{dims: dims}, dist: rank, exact: exact, m: m, m0: 2 * m, efC: max(efConstruct, 1),
		mL: 1 / math.Log(float64(max(m, 2))), rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), top: -1,
		maxLevel: 16}
}

func (h *HNSW) links(slot uint32, level int) []uint32 {
	if level == 0 {
		i := int(slot) * (h.m0 + 1)
		return h.links0[i : i+h.m0+1]
	}
	i := (level - 1) * (h.m + 1)
	return h.upper[slot][i : i+h.m+1]
}

func (h *HNSW) grow(slot uint32) {
	if n := int(slot) + 1; n > len(h.levels) {
		old := len(h.levels)
		h.levels = growTo(h.levels, n)
		for i := old; i < n; i++ {
			h.levels[i] = -1
		}
		h.upper = growTo(h.upper, n)
		h.links0 = growTo(h.links0, n*(h.m0+1))
	}
}

func (h *HNSW) randomLevel() int {
	u := 1 - h.rng.Float64() // (0, 1]
	return min(int(-math.Log(u)*h.mL), h.maxLevel)
}

// Add implements Index.
func (h *HNSW) Add(slot uint32, v []float32) {
	h.grow(slot)
	h.st.put(slot, v)
	l := h.randomLevel()
	h.levels[slot] = int8(l)
	clear(h.links(slot, 0))
	h.upper[slot] = nil
	if l > 0 {
		h.upper[slot] = make([]uint32, l*(h.m+1))
	}
	h.nodes++
	if h.top < 0 {
		h.entry, h.top = slot, l
		return
	}
	q := h.st.vec(slot)
	ep := Hit{h.entry, h.dist(q, h.st.vec(h.entry))}
	for lc := h.top; lc > l; lc-- {
		ep = h.greedy(q, ep, lc)
	}
	sc := scratchPool.Get().(*scratch)
	for lc := min(l, h.top); lc >= 0; lc-- {
		h.searchLayer(q, ep, h.efC, lc, nil, false, sc)
		cands := sc.res.sorted()
		ep = cands[0]
		mmax := h.m
		if lc == 0 {
			mmax = h.m0
		}
		nbrs := h.heuristic(cands, h.m)
		own := h.links(slot, lc)
		own[0] = uint32(len(nbrs))
		for i, n := range nbrs {
			own[1+i] = n.Slot
		}
		for _, n := range nbrs {
			h.connect(n.Slot, slot, n.Dist, lc, mmax, sc)
		}
	}
	scratchPool.Put(sc)
	if l > h.top {
		h.entry, h.top = slot, l
	}
}

// heuristic keeps, nearest first, each candidate that is nearer to the
// query than to every candidate already kept (hnswlib's
// getNeighborsByHeuristic2), up to m.
func (h *HNSW) heuristic(cands []Hit, m int) []Hit {
	if len(cands) <= m {
		return cands
	}
	kept := cands[:0:0]
	for _, c := range cands {
		if len(kept) == m {
			break
		}
		cv := h.st.vec(c.Slot)
		good := true
		for _, k := range kept {
			if h.dist(cv, h.st.vec(k.Slot)) < c.Dist {
				good = false
				break
			}
		}
		if good {
			kept = append(kept, c)
		}
	}
	return kept
}

// connect adds a link from n to slot at level lc, pruning n's links with
// the heuristic when they overflow mmax.
func (h *HNSW) connect(n, slot uint32, d float32, lc, mmax int, sc *scratch) {
	ls := h.links(n, lc)
	cnt := int(ls[0])
	if cnt < mmax {
		ls[1+cnt] = slot
		ls[0]++
		return
	}
	nv := h.st.vec(n)
	sc.all.reset()
	sc.all.push(Hit{slot, d})
	for _, o := range ls[1 : 1+cnt] {
		sc.all.push(Hit{o, h.dist(nv, h.st.vec(o))})
	}
	kept := h.heuristic(sc.all.sorted(), mmax)
	ls[0] = uint32(len(kept))
	for i, k := range kept {
		ls[1+i] = k.Slot
	}
}

// greedy walks level lc towards q from ep while a neighbour is nearer.
func (h *HNSW) greedy(q []float32, ep Hit, lc int) Hit {
	for changed := true; changed; {
		changed = false
		ls := h.links(ep.Slot, lc)
		for _, n := range ls[1 : 1+ls[0]] {
			if d := h.dist(q, h.st.vec(n)); d < ep.Dist {
				ep, changed = Hit{n, d}, true
			}
		}
	}
	return ep
}

// searchLayer explores level lc from ep with a beam of ef, leaving in
// sc.res the ef nearest nodes that ok accepts. With filtering set (a filter
// or tombstones), rejected nodes are still routed through and the search
// goes on until ef accepted nodes are found or the reachable graph is
// exhausted (as hnswlib does).
func (h *HNSW) searchLayer(q []float32, ep Hit, ef, lc int, ok func(uint32) bool, filtering bool, sc *scratch) {
	sc.seen.begin(len(h.levels))
	sc.cand.reset()
	sc.res.reset()
	sc.seen.visit(ep.Slot)
	sc.cand.push(ep)
	lower := float32(math.Inf(1))
	if ok == nil || ok(ep.Slot) {
		sc.res.push(ep)
		lower = ep.Dist
	}
	for sc.cand.Len() > 0 {
		c := sc.cand.pop()
		if c.Dist > lower && (sc.res.Len() >= ef || !filtering) {
			break
		}
		ls := h.links(c.Slot, lc)
		for _, n := range ls[1 : 1+ls[0]] {
			if !sc.seen.visit(n) {
				continue
			}
			d := h.dist(q, h.st.vec(n))
			if sc.res.Len() < ef || d < lower {
				sc.cand.push(Hit{n, d})
				if ok == nil || ok(n) {
					sc.res.push(Hit{n, d})
					if sc.res.Len() > ef {
						sc.res.pop()
					}
				}
				if sc.res.Len() > 0 {
					lower = sc.res.top().Dist
				}
			}
		}
	}
}

// Search implements Index; the hits carry the exact distance.
func (h *HNSW) Search(q []float32, k, ef int, accept func(uint32) bool) []Hit {
	if h.top < 0 || k <= 0 {
		return nil
	}
	ef = max(ef, k)
	ep := Hit{h.entry, h.dist(q, h.st.vec(h.entry))}
	for lc := h.top; lc > 0; lc-- {
		ep = h.greedy(q, ep, lc)
	}
	ok := accept
	if h.deleted > 0 {
		ok = func(s uint32) bool { return h.st.live[s] && (accept == nil || accept(s)) }
	}
	sc := scratchPool.Get().(*scratch)
	h.searchLayer(q, ep, ef, 0, ok, ok != nil, sc)
	for sc.res.Len() > k {
		sc.res.pop()
	}
	for i := range sc.res.h {
		sc.res.h[i].Dist = h.exact(q, h.st.vec(sc.res.h[i].Slot))
	}
	out := sc.res.sorted()
	scratchPool.Put(sc)
	return out
}

// Remove implements Index.
func (h *HNSW) Remove(slot uint32) {
	if h.st.has(slot) {
		h.st.live[slot] = false
		h.deleted++
	}
}

// Vector implements Index.
func (h *HNSW) Vector(slot uint32) []float32 {
	if !h.st.has(slot) {
		return nil
	}
	return h.st.vec(slot)
}

// Deleted implements Index.
func (h *HNSW) Deleted() int { return h.deleted }

// Compact rebuilds the graph from the live nodes, in slot order, dropping
// the tombstones; slots keep their vectors.
func (h *HNSW) Compact() {
	if h.deleted == 0 {
		return
	}
	old := h.st
	*h = *NewHNSW(old.dims, h.dist, h.exact, h.m, h.efC, h.rng.Uint64())
	for i, ok := range old.live {
		if ok {
			h.Add(uint32(i), old.data[i*old.dims:(i+1)*old.dims])
		}
	}
}

// MemoryBytes implements Index.
func (h *HNSW) MemoryBytes() uint64 {
	n := h.st.bytes() + uint64(cap(h.links0))*4 + uint64(cap(h.levels)) + uint64(cap(h.upper))*24
	for _, u := range h.upper {
		n += uint64(cap(u)) * 4
	}
	return n + 128
}
