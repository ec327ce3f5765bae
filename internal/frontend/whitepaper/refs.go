package whitepaper

import "github.com/tairbench/tairbench/pkg/result"

// enhancedRef is one published row of the enhanced edition's GET or SET
// table: redis-benchmark with 256 connections and 16 threads over 100,000
// keys, on a redis.amber.master.large.multithread instance.
type enhancedRef struct {
	op        string
	valueSize int
	qps       float64
	// cum[i] is the percent of requests at or below (i+1) × 0.1 ms.
	cum []float64
}

// enhancedRefs are the whitepaper's figures (seed 000, "GET/SET 测试结果").
var enhancedRefs = []enhancedRef{
	{"get", 64, 444115.47, []float64{0.00, 0.01, 0.05, 3.10, 31.02, 70.33, 99.67}},
	{"get", 128, 435276.94, []float64{0.00, 0.01, 0.04, 0.67, 18.28, 57.34, 86.72, 98.58, 99.88}},
	{"get", 256, 427960.03, []float64{0.00, 0.02, 0.04, 1.38, 24.10, 62.43, 86.83, 98.13, 99.86}},
	{"get", 1024, 428265.53, []float64{0.00, 0.02, 0.06, 3.92, 27.29, 62.92, 85.32, 96.47, 99.52}},
	{"set", 64, 218086.66, []float64{0.00, 0.00, 0.01, 0.01, 0.02, 0.04, 0.07, 0.09, 0.13, 0.49, 16.20, 81.83, 98.74, 99.74}},
	{"set", 128, 206825.23, []float64{0.00, 0.00, 0.00, 0.01, 0.01, 0.03, 0.05, 0.08, 0.14, 0.20, 1.08, 36.09, 93.36, 99.17}},
	{"set", 256, 203086.92, []float64{0.00, 0.00, 0.00, 0.01, 0.01, 0.02, 0.04, 0.05, 0.08, 0.13, 1.01, 26.12, 91.45, 99.16}},
	{"set", 1024, 184547.23, []float64{0.00, 0.00, 0.00, 0.00, 0.01, 0.02, 0.03, 0.05, 0.07, 0.09, 0.12, 0.30, 11.28, 75.67, 97.70, 99.41}},
}

func (r enhancedRef) figures() result.WhitepaperFigures {
	f := result.WhitepaperFigures{QPS: r.qps}
	for i, p := range r.cum {
		f.Cumulative = append(f.Cumulative, result.CumulativeStep{LEms: float64(i+1) / 10, Percent: p})
	}
	return f
}

// clusterRefs are the cluster edition's published QPS per instance type
// (seed 000, "集群版-双副本规格": dual-replica cluster instances, QPS
// reference values measured with memtier_benchmark).
var clusterRefs = []result.WhitepaperReference{
	{Name: "4 GB cluster, 2 nodes", QPS: 160000},
	{Name: "8 GB cluster, 2 nodes", QPS: 160000},
	{Name: "16 GB cluster, 8 nodes", QPS: 640000},
	{Name: "32 GB cluster, 8 nodes", QPS: 640000},
	{Name: "64 GB cluster, 8 nodes", QPS: 640000},
	{Name: "128 GB cluster, 16 nodes", QPS: 1280000},
	{Name: "256 GB cluster, 16 nodes", QPS: 1280000},
	{Name: "512 GB cluster, 32 nodes", QPS: 2560000},
	{Name: "1 TB cluster, 64 nodes", QPS: 5120000},
	{Name: "2 TB cluster, 128 nodes", QPS: 10240000},
}
