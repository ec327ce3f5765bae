package ycsb

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tairbench/tairbench/internal/editdist"
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
			if d := editdist.Distance([]rune(k), []rune(a), len(k)+len(a)); d < dist {
				best, dist = a, d
			}
		}
		return fmt.Errorf("unknown property %q: did you mean %q? (--allow-unknown-properties accepts unknown ones, as YCSB does)", k, best)
	}
	return nil
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
