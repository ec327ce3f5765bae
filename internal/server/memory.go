package server

import (
	"os"
	"runtime/debug"
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
