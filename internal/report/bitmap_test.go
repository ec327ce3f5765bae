package bitmap

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tairbench/tairbench/pkg/result"
)

// TestFastestSetsEveryStructureAgainstTheFastest: every structure within
// 15 % of the fastest is named with it, not only the runner-up; one that
// completed nothing is left out.
func TestFastestSetsEveryStructureAgainstTheFastest(t *testing.T) {
	op := func(means ...float64) result.BitmapOperation {
		names := []string{"tairroaring", "redis-bitmap", "redis-set"}
		var o result.BitmapOperation
		for i, m := range means {
			r := result.BitmapOpResult{Structure: names[i]}
			if m > 0 {
				r.Closed = &result.Run{Totals: result.Totals{Ops: 100, Latency: result.Latency{Mean: m}}}
			}
			o.Results = append(o.Results, r)
		}
		return o
	}
	for _, tc := range []struct {
		name string
		op   result.BitmapOperation
		want string
	}{
		{"one clearly fastest", op(100, 200, 300), "tairroaring"},
		{"runner-up within 15 %", op(110, 100, 300), "≈ redis-bitmap, tairroaring"},
		{"all three within 15 % of the fastest", op(107, 100, 112), "≈ redis-bitmap, tairroaring, redis-set"},
		{"the third is within 15 % of the second, not the fastest", op(100, 114, 120), "≈ tairroaring, redis-bitmap"},
		{"a structure that completed nothing", op(0, 100, 105), "≈ redis-bitmap, redis-set"},
		{"none completed", op(0, 0, 0), "—"},
	} {
		assert.Equal(t, tc.want, fastest(tc.op), tc.name)
	}
}
