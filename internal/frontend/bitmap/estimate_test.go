package bitmap

import (
	"testing"
	"time"

	rb "github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/assert"

	"github.com/tairbench/tairbench/internal/driver/bitmaps"
)

// TestRunTimeCountsSlowCalls: a call too slow for four per connection in
// the duration is counted as four per connection in turn (a Redis set's
// union of two 10^6-ID keys, about 1 s a call); a fast one as the
// duration.
func TestRunTimeCountsSlowCalls(t *testing.T) {
	big := rb.New()
	big.AddRange(0, 1_000_000)
	p := point{card: 1_000_000, universe: 1 << 24, sets: []IDSet{{IDs: big}, {IDs: big}}}
	o := &Options{Duration: time.Second, Connections: 4, Probes: 10}
	or2, _ := bitmaps.OpByName(bitmaps.OpOrCard2)
	count, _ := bitmaps.OpByName(bitmaps.OpCount)
	assert.InDelta(t, 1.0, callCost(bitmaps.RedisSet, or2, p), 1e-9, "2×10^6 IDs at 500 ns")
	assert.InDelta(t, 16*1.0+1.0, o.runTime(bitmaps.RedisSet, or2, p), 1e-9, "16 calls in turn, and the cross-check's one")
	assert.InDelta(t, 1.0, o.runTime(bitmaps.TairRoaring, count, p), 1e-9, "a fast call: the duration")
}
