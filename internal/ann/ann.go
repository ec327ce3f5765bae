// Package ann holds the nearest-neighbour indexes behind TairVector's
// embedded module: FLAT (an exact scan) and HNSW (Malkov and Yashunin's
// hierarchical navigable small world graph, with the heuristic neighbour
// selection). Both index vectors by slot: a dense uint32 the caller
// assigns and maps to its own keys. Searches never modify the index, so any
// number may run together while no write does (the caller's read lock).
package ann

import (
	"sort"
	"sync"
)

// Dist is a distance between two vectors of the index's dimension;
// smaller is nearer.
type Dist func(a, b []float32) float32

// Hit is one search result.
type Hit struct {
	Slot uint32
	Dist float32
}

// Index is FLAT or HNSW.
type Index interface {
	// Add stores v at slot (a slot not in use; slots may leave gaps).
	Add(slot uint32, v []float32)
	// Remove takes slot out of results. HNSW keeps the node to route
	// through (a tombstone) until Compact.
	Remove(slot uint32)
	// Search returns up to k hits in ascending distance order, among the
	// slots accept lets through (nil: all). ef is HNSW's search breadth
	// (raised to k when below it); FLAT ignores it.
	Search(q []float32, k, ef int, accept func(slot uint32) bool) []Hit
	// Vector returns the stored vector at slot (nil when none).
	Vector(slot uint32) []float32
	// Deleted is the number of tombstones waiting for Compact.
	Deleted() int
	// MemoryBytes estimates the index's memory: vectors and links.
	MemoryBytes() uint64
}

// store holds vectors in one slab, dims floats per slot.
type store struct {
	dims int
	data []float32
	live []bool
}

func (s *store) put(slot uint32, v []float32) {
	if need := (int(slot) + 1) * s.dims; need > len(s.data) {
		s.data = growTo(s.data, need)
		s.live = growTo(s.live, int(slot)+1)
	}
	copy(s.data[int(slot)*s.dims:], v)
	s.live[slot] = true
}

// growTo lengthens b to n zero-filled elements, doubling its capacity
// when it must move.
func growTo[T any](b []T, n int) []T {
	if n <= cap(b) {
		old := len(b)
		b = b[:n]
		clear(b[old:])
		return b
	}
	nb := make([]T, n, max(n, 2*cap(b)))
	copy(nb, b)
	return nb
}

func (s *store) vec(slot uint32) []float32 {
	i := int(slot) * s.dims
	return s.data[i : i+s.dims : i+s.dims]
}

func (s *store) has(slot uint32) bool { return int(slot) < len(s.live) && s.live[slot] }

func (s *store) bytes() uint64 { return uint64(cap(s.data))*4 + uint64(cap(s.live)) }

// Flat is the exact index: every search scans every vector.
type Flat struct {
	st   store
	dist Dist
}

// NewFlat returns an empty FLAT index.
func NewFlat(dims int, dist Dist) *Flat { return &Flat{st: store{dims: dims}, dist: dist} }

// Add implements Index.
func (f *Flat) Add(slot uint32, v []float32) { f.st.put(slot, v) }

// Remove implements Index.
func (f *Flat) Remove(slot uint32) {
	if f.st.has(slot) {
		f.st.live[slot] = false
	}
}

// Vector implements Index.
func (f *Flat) Vector(slot uint32) []float32 {
	if !f.st.has(slot) {
		return nil
	}
	return f.st.vec(slot)
}

// Deleted implements Index: FLAT reuses its slots at once.
func (f *Flat) Deleted() int { return 0 }

// MemoryBytes implements Index.
func (f *Flat) MemoryBytes() uint64 { return f.st.bytes() + 64 }

// Search implements Index.
func (f *Flat) Search(q []float32, k, _ int, accept func(uint32) bool) []Hit {
	if k <= 0 {
		return nil
	}
	var h maxHeap
	for i, ok := range f.st.live {
		slot := uint32(i)
		if !ok || (accept != nil && !accept(slot)) {
			continue
		}
		d := f.dist(q, f.st.vec(slot))
		if h.Len() < k {
			h.push(Hit{slot, d})
		} else if d < h.top().Dist {
			h.replaceTop(Hit{slot, d})
		}
	}
	return h.sorted()
}

// Exact returns the k nearest of vectors (row-major, dims each) to q by a
// full scan, in ascending distance order: the ground truth that recall is
// measured against.
func Exact(vectors []float32, dims int, q []float32, k int, dist Dist) []Hit {
	var h maxHeap
	for i := 0; i*dims < len(vectors); i++ {
		d := dist(q, vectors[i*dims:(i+1)*dims])
		if h.Len() < k {
			h.push(Hit{uint32(i), d})
		} else if d < h.top().Dist {
			h.replaceTop(Hit{uint32(i), d})
		}
	}
	return h.sorted()
}

// maxHeap keeps the worst hit on top (ties: the higher slot is worse, so
// results are deterministic).
type maxHeap struct{ h []Hit }

func worse(a, b Hit) bool { return a.Dist > b.Dist || (a.Dist == b.Dist && a.Slot > b.Slot) }

func (m *maxHeap) Len() int { return len(m.h) }
func (m *maxHeap) top() Hit { return m.h[0] }
func (m *maxHeap) reset()   { m.h = m.h[:0] }
func (m *maxHeap) push(x Hit) {
	m.h = append(m.h, x)
	i := len(m.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !worse(m.h[i], m.h[p]) {
			break
		}
		m.h[i], m.h[p] = m.h[p], m.h[i]
		i = p
	}
}

func (m *maxHeap) pop() Hit {
	x := m.h[0]
	n := len(m.h) - 1
	m.h[0] = m.h[n]
	m.h = m.h[:n]
	m.down(0)
	return x
}

func (m *maxHeap) replaceTop(x Hit) {
	m.h[0] = x
	m.down(0)
}

func (m *maxHeap) down(i int) {
	n := len(m.h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && worse(m.h[r], m.h[l]) {
			j = r
		}
		if !worse(m.h[j], m.h[i]) {
			return
		}
		m.h[i], m.h[j] = m.h[j], m.h[i]
		i = j
	}
}

// sorted returns the heap's hits in ascending distance order (a new slice).
func (m *maxHeap) sorted() []Hit {
	out := append([]Hit(nil), m.h...)
	sort.Slice(out, func(i, j int) bool { return worse(out[j], out[i]) })
	return out
}

// minHeap keeps the nearest hit on top: a maxHeap of negated distances.
type minHeap struct{ m maxHeap }

func (h *minHeap) Len() int   { return h.m.Len() }
func (h *minHeap) reset()     { h.m.reset() }
func (h *minHeap) push(x Hit) { h.m.push(Hit{x.Slot, -x.Dist}) }
func (h *minHeap) pop() Hit {
	x := h.m.pop()
	return Hit{x.Slot, -x.Dist}
}

// visited marks slots seen by one search: a slot is visited when its
// stamp equals the current generation, so clearing is one increment.
type visited struct {
	stamp []uint32
	gen   uint32
}

func (v *visited) begin(n int) {
	if len(v.stamp) < n {
		v.stamp = make([]uint32, n+n/4)
		v.gen = 0
	}
	v.gen++
	if v.gen == 0 {
		clear(v.stamp)
		v.gen = 1
	}
}

// visit marks slot and says whether it was new.
func (v *visited) visit(slot uint32) bool {
	if v.stamp[slot] == v.gen {
		return false
	}
	v.stamp[slot] = v.gen
	return true
}

// scratch is one search's working memory, pooled across searches.
type scratch struct {
	seen visited
	cand minHeap
	res  maxHeap
	all  maxHeap // every visited node (filtered searches route through rejected ones)
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}
