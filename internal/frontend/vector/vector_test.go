package vector

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tairbench/tairbench/pkg/result"
)

func TestAtRecall(t *testing.T) {
	pt := func(p int, r, q float64) result.VectorPoint { return result.VectorPoint{Param: p, Recall: r, QPS: q} }
	tests := []struct {
		name   string
		points []result.VectorPoint
		want   []float64 // QPS at 0.9, 0.95, 0.99
		how    string    // of the 0.95 one
	}{
		{"interpolated", []result.VectorPoint{pt(10, 0.9, 1000), pt(20, 1.0, 500)}, []float64{1000, 750, 550}, "interpolated between 10 and 20"},
		{"all above: the best point", []result.VectorPoint{pt(10, 0.97, 800), pt(20, 0.999, 300)}, []float64{800, 800, 455}, "measured at 10 (recall 0.9700)"},
		{"none reaches", []result.VectorPoint{pt(10, 0.5, 800), pt(20, 0.8, 300)}, []float64{0, 0, 0}, "no point reached recall 0.95"},
		{"a beaten point is ignored", []result.VectorPoint{pt(10, 0.92, 400), pt(20, 0.96, 900), pt(40, 0.995, 100)},
			[]float64{900, 900, 214}, "measured at 20 (recall 0.9600)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := AtRecall(tc.points, []float64{0.9, 0.95, 0.99})
			for i, w := range tc.want {
				assert.InDelta(t, w, got[i].QPS, 1, "recall %.2f", got[i].Recall)
			}
			assert.Equal(t, tc.how, got[1].How)
		})
	}
}
