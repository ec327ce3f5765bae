// Package serverstat is the typed reading of a server's own counters that
// drivers take (driver/redis from INFO, driver/elastic from node stats)
// and the run layer turns into a result's server timeline. It sits below
// both, so that neither imports the other.
package serverstat

import (
	"context"
	"time"
)

// Metric names one counter or gauge a server may report.
type Metric uint8

// The metrics a Sampler may fill. Counters are cumulative (the timeline
// takes their rate); gauges are read as they are.
const (
	// Commands is the commands processed (counter).
	Commands Metric = iota
	// CPUSeconds is the server process's CPU time (counter).
	CPUSeconds
	// Indexed is the documents indexed (counter).
	Indexed
	// Queries is the queries run (counter).
	Queries
	// KeyspaceMisses is the reads that found no key (counter).
	KeyspaceMisses
	// UsedMemory is the memory the server reports in use (gauge, bytes).
	UsedMemory
	// Clients is the connected clients (gauge).
	Clients
	// HeapUsed is a JVM's heap in use (gauge, bytes).
	HeapUsed
	// Uptime is the seconds since the server started (gauge): when it
	// goes down, the server restarted.
	Uptime
	// Cores is the processors the server may use (gauge): CPU rates above
	// it are readings' jitter, not use.
	Cores
	numMetrics
)

var metricNames = [numMetrics]string{"commands", "cpu_seconds", "indexed", "queries", "keyspace_misses", "used_memory", "connected_clients", "heap_used", "uptime", "cores"}

// String is the metric's name in results ("missing" lists).
func (m Metric) String() string {
	if m < numMetrics {
		return metricNames[m]
	}
	return "unknown"
}

// Counter says whether the metric is cumulative.
func (m Metric) Counter() bool { return m <= KeyspaceMisses }

// Reading is one reading of a server's own counters.
type Reading struct {
	At     time.Time
	values [numMetrics]float64
	has    [numMetrics]bool
	// Calls are the calls per command (lower case), from INFO commandstats;
	// nil when the server gives none. Rejected and Failed are Redis 7's
	// rejected_calls (refused before running: wrong arity, LOADING, OOM;
	// not in Calls) and failed_calls (ran and replied an error; in Calls).
	Calls, Rejected, Failed map[string]int64
	// Life names the server process that answered (Redis's run_id; empty
	// when the server gives none).
	Life string
}

// Restarted says whether cur was read from another life of the server
// than prev: another run_id, a lower uptime, or a counter that went down.
func Restarted(prev, cur Reading) bool {
	if prev.Life != "" && cur.Life != "" && prev.Life != cur.Life {
		return true
	}
	for m := Metric(0); m < numMetrics; m++ {
		if (m.Counter() || m == Uptime) && prev.has[m] && cur.has[m] && cur.values[m] < prev.values[m] {
			return true
		}
	}
	for c, n := range prev.Calls {
		if cur.Calls != nil && cur.Calls[c] < n {
			return true
		}
	}
	return false
}

// Set stores v for m.
func (r *Reading) Set(m Metric, v float64) { r.values[m], r.has[m] = v, true }

// Add adds v to m (a sum over nodes).
func (r *Reading) Add(m Metric, v float64) { r.values[m] += v; r.has[m] = true }

// Get returns m's value, and whether the reading has it.
func (r *Reading) Get(m Metric) (float64, bool) { return r.values[m], r.has[m] }

// Sampler reads a server's own counters on a connection of its own.
type Sampler interface {
	// Source names what is read ("INFO", "_nodes/stats").
	Source() string
	// Expected lists the metrics this kind of server should give.
	Expected() []Metric
	// Read takes one reading.
	Read(ctx context.Context) (Reading, error)
	// Close releases the sampler's connection.
	Close() error
}
