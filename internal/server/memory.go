package server

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// pendingBudget counts the request-buffer bytes of all connections; it
// implements resp.Budget. When buffers are released in bulk (clients with
// large requests leave), the memory is handed back to the operating system.
type pendingBudget struct {
	max      int64
	used     atomic.Int64
	released atomic.Int64
	mu       sync.Mutex
	lastFree time.Time
}

// Reserve charges n bytes, or refuses when the total would pass the budget.
func (b *pendingBudget) Reserve(n int64) bool {
	if b.used.Add(n) > b.max {
		b.used.Add(-n)
		return false
	}
	return true
}

// Release refunds n bytes; past 64 MiB released, the heap is returned to
// the operating system (at most once a second).
func (b *pendingBudget) Release(n int64) {
	b.used.Add(-n)
	if b.released.Add(n) < 64<<20 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if time.Since(b.lastFree) < time.Second {
		return
	}
	b.released.Store(0)
	b.lastFree = time.Now()
	go debug.FreeOSMemory()
}

// residentBytes is the process's resident set size, from /proc on Linux
// (0 where it cannot be read).
func residentBytes() uint64 {
	raw, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}

// trimmer hands the heap's garbage and free memory back to the operating
// system once clients leave: a connection's close schedules one look, a
// second after the last close and at most every trimEvery; the look frees
// memory when the heap the process holds (objects, live or garbage, gaps
// in spans and free spans) has grown by trimAt since the last time it did.
// An idle Go process would otherwise keep it until its next collection,
// two minutes later.
type trimmer struct {
	mu      sync.Mutex
	pending bool
	last    time.Time
	held    uint64 // the heap held after the last trim
	samples []metrics.Sample
}

const (
	trimEvery = 5 * time.Second
	trimAt    = 64 << 20
)

// closed schedules a look at the heap (a connection closed).
func (t *trimmer) closed() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pending {
		return
	}
	t.pending = true
	wait := max(time.Second, trimEvery-time.Since(t.last))
	time.AfterFunc(wait, t.look)
}

func (t *trimmer) look() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending, t.last = false, time.Now()
	held := t.heldBytes()
	if held >= t.held+trimAt {
		debug.FreeOSMemory()
		t.held = t.heldBytes()
	}
}

// heldBytes is the heap memory the process holds.
func (t *trimmer) heldBytes() uint64 {
	if t.samples == nil {
		t.samples = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"},
			{Name: "/memory/classes/heap/free:bytes"}}
	}
	metrics.Read(t.samples)
	var held uint64
	for _, s := range t.samples {
		held += s.Value.Uint64()
	}
	return held
}
