// Command libfloor sets up the libraries tairbench is built on, as
// tairbench sets them up, and does nothing with them: no connection, no
// request. It is the memory a Go program made of these libraries holds
// before its first connection; make bench-client prints its peak RSS
// beside tairbench's and redis-benchmark's, as the floor under the
// client-memory bar of issue #26 (scripts/floor_client.c is the floor under
// its CPU bars). With a duration it stays up that long, so that the peak
// can be read from /proc:
//
//	go build -o /tmp/libfloor ./tools/libfloor && /tmp/libfloor 300ms
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/RoaringBitmap/roaring/v2"
	"github.com/elastic/go-elasticsearch/v8"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"
	"github.com/spf13/cobra"
	"github.com/valyala/fasthttp"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "libfloor:", err)
		os.Exit(2)
	}
}

// run sets the libraries up, waits the duration args may give, and
// releases what it made.
func run(args []string) error {
	if len(args) > 1 {
		return fmt.Errorf("usage: libfloor [duration]")
	}
	var d time.Duration
	if len(args) == 1 {
		var err error
		if d, err = time.ParseDuration(args[0]); err != nil || d < 0 {
			return fmt.Errorf("%q is not a duration (e.g. 300ms)", args[0])
		}
	}
	// Each as tairbench's code makes it (internal/driver/redis,
	// internal/driver/elastic, internal/metrics, internal/cli). Nothing
	// below dials: go-redis connects at the first command, the
	// Elasticsearch client at the first request, fasthttp's at the first Do.
	rc := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", Protocol: 2})
	es, err := elasticsearch.NewBaseClient(elasticsearch.Config{Addresses: []string{"http://127.0.0.1:9200"}})
	if err != nil {
		return fmt.Errorf("elasticsearch client: %w", err)
	}
	reg := prometheus.NewRegistry()
	if err := reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{Namespace: "libfloor"})); err != nil {
		return fmt.Errorf("prometheus: %w", err)
	}
	hc := &fasthttp.HostClient{Addr: "127.0.0.1:9200", MaxConns: 1}
	cmd := &cobra.Command{Use: "libfloor", Run: func(*cobra.Command, []string) {}}
	h := hdrhistogram.New(1, 60_000_000, 3)
	bm := roaring.BitmapOf(1, 2, 3)
	time.Sleep(d)
	hc.CloseIdleConnections()
	_, _, _ = es.Transport, cmd.Use, h.Max()
	_ = bm.GetCardinality()
	return rc.Close()
}
