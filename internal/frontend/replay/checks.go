package replay

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tairbench/tairbench/internal/replay"
	"github.com/tairbench/tairbench/internal/trace"
	"github.com/tairbench/tairbench/pkg/result"
)

// cursors keeps a run's cursors (made as its workers connect, maybe at
// once), to add up their reply checks after it.
type cursors struct {
	mu  sync.Mutex
	all []*replay.Cursor
}

func (c *cursors) add(k *replay.Cursor) *replay.Cursor {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.all = append(c.all, k)
	return k
}

// note puts the checks into the run's replay settings and, when some
// differed, a warning.
func (c *cursors) note(r *result.Run) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rc := r.Config.Replay
	if rc == nil {
		return
	}
	diff := map[string]int64{}
	for _, k := range c.all {
		for want := range k.Kinds {
			for got, n := range k.Kinds[want] {
				rc.RepliesChecked += n
				if want != got && n > 0 {
					diff[trace.KindName(byte(want))+" → "+trace.KindName(byte(got))] += n
				}
			}
		}
	}
	var total int64
	for what, n := range diff {
		rc.RepliesDiffering = append(rc.RepliesDiffering, result.ReplayDrop{What: what, Count: n})
		total += n
	}
	slices.SortFunc(rc.RepliesDiffering, func(a, b result.ReplayDrop) int { return strings.Compare(a.What, b.What) })
	if total > 0 {
		var parts []string
		for _, d := range rc.RepliesDiffering {
			parts = append(parts, fmt.Sprintf("%d %s", d.Count, d.What))
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d of %d replies were of another kind than the capture's (%s)",
			total, rc.RepliesChecked, strings.Join(parts, ", ")))
	}
}
