package elastic

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/elastic/go-elasticsearch/v8/esapi"

	"github.com/tairbench/tairbench/internal/serverstat"
)

// esSampler reads Elasticsearch's node stats: JVM heap, indexing and
// query totals and process CPU.
type esSampler struct{ e *elastic }

func (s esSampler) Source() string { return "_nodes/stats" }

func (s esSampler) Expected() []serverstat.Metric {
	return []serverstat.Metric{serverstat.HeapUsed, serverstat.Indexed, serverstat.Queries, serverstat.CPUSeconds}
}

func (s esSampler) Read(ctx context.Context) (serverstat.Reading, error) {
	body, err := do(ctx, s.e.es, esapi.NodesStatsRequest{Metric: []string{"jvm", "indices", "process"}})
	if err != nil {
		return serverstat.Reading{}, fmt.Errorf("elasticsearch: node stats: %w", describeHTTP(err))
	}
	var ns struct {
		Nodes map[string]struct {
			JVM struct {
				Mem struct {
					HeapUsed int64 `json:"heap_used_in_bytes"`
				} `json:"mem"`
			} `json:"jvm"`
			Indices struct {
				Indexing struct {
					Total int64 `json:"index_total"`
				} `json:"indexing"`
				Search struct {
					Total int64 `json:"query_total"`
				} `json:"search"`
			} `json:"indices"`
			Process struct {
				CPU struct {
					TotalMS int64 `json:"total_in_millis"`
				} `json:"cpu"`
			} `json:"process"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(body, &ns); err != nil {
		return serverstat.Reading{}, fmt.Errorf("elasticsearch: node stats: %w", err)
	}
	r := serverstat.Reading{At: time.Now()}
	if c := s.e.allocatedProcessors(ctx); c > 0 {
		r.Set(serverstat.Cores, c)
	}
	for _, n := range ns.Nodes {
		r.Add(serverstat.HeapUsed, float64(n.JVM.Mem.HeapUsed))
		r.Add(serverstat.Indexed, float64(n.Indices.Indexing.Total))
		r.Add(serverstat.Queries, float64(n.Indices.Search.Total))
		r.Add(serverstat.CPUSeconds, float64(n.Process.CPU.TotalMS)/1000)
	}
	return r, nil
}

func (s esSampler) Close() error { return nil }

// heapUsed is a reading's JVM heap in bytes (0 when absent).
func heapUsed(r serverstat.Reading) int64 {
	v, _ := r.Get(serverstat.HeapUsed)
	return int64(v)
}

// allocatedProcessors is the processors the nodes may use (the sum of
// _nodes/os allocated_processors), read once; 0 when not given.
func (e *elastic) allocatedProcessors(ctx context.Context) float64 {
	e.coresOnce.Do(func() {
		body, err := do(ctx, e.es, esapi.NodesInfoRequest{Metric: []string{"os"}})
		if err != nil {
			return
		}
		var ni struct {
			Nodes map[string]struct {
				OS struct {
					Allocated int `json:"allocated_processors"`
				} `json:"os"`
			} `json:"nodes"`
		}
		if json.Unmarshal(body, &ni) != nil {
			return
		}
		for _, n := range ni.Nodes {
			e.cores += float64(n.OS.Allocated)
		}
	})
	return e.cores
}
