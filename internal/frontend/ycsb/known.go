package ycsb

import (
	"fmt"
	"slices"
	"strings"
)

// known are the properties tairbench reads (with defaults' keys).
var known = []string{"insertcount", "maxexecutiontime", "target", "redis.password", "redis.cluster", "redis.range"}

// accepted are YCSB's properties that change nothing here: the core
// workload files' class name and field flags, scan lengths (scans are
// refused), the measurement and export settings, the table name.
var accepted = []string{"workload", "readallfields", "writeallfields", "maxscanlength", "minscanlength",
	"scanlengthdistribution", "table", "measurementtype", "measurement.interval", "exporter", "exportfile",
	"histogram.buckets", "hdrhistogram.percentiles", "status.interval", "core_workload_insertion_retry_limit",
	"core_workload_insertion_retry_interval", "dataintegrity"}

// checkKeys refuses a property tairbench does not know, naming the known
// one nearest to it: a typo (recordcout) would otherwise run the default.
func checkKeys(keys []string) error {
	all := slices.Concat(known, accepted)
	for k := range defaults {
		all = append(all, k)
	}
	slices.Sort(all)
	for _, k := range keys {
		if slices.Contains(all, k) {
			continue
		}
		best, dist := "", 1<<30
		for _, a := range all {
			if d := editDistance(k, a); d < dist {
				best, dist = a, d
			}
		}
		return fmt.Errorf("unknown property %q: did you mean %q? (--allow-unknown-properties accepts unknown ones, as YCSB does)", k, best)
	}
	return nil
}

// editDistance is Levenshtein's distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// builtIn is the core workload a -P path names: only workloads/workloada
// … workloads/workloadf (as YCSB's distribution lays them out).
func builtIn(path string) (string, bool) {
	name, ok := strings.CutPrefix(strings.TrimPrefix(path, "./"), "workloads/")
	if !ok {
		return "", false
	}
	_, isCore := coreWorkloads[name]
	return name, isCore
}
