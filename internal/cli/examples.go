package cli

import (
	"cmp"
	"fmt"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
)

// examples is each command's example, keyed by its path; the first line
// opens its help.
var examples = map[string]string{
	"tairbench":                   "tairbench redis --embedded -command 'TR.GETBIT foo __RAND__' -d 10",
	"tairbench redis":             "tairbench redis -h HOST -port 6379 -a user:password -p 50 -d 30 -r 100000 -command 'GET k-__RAND__'",
	"tairbench redis-benchmark":   "tairbench redis-benchmark -h HOST -p 6379 -a user:password -c 50 -n 100000 -t set,get -d 64",
	"tairbench memtier":           "tairbench memtier -s HOST -p 6379 -a user:password -c 20 -t 4 --ratio=1:10 --test-time=30",
	"tairbench resp-benchmark":    "tairbench resp-benchmark -h HOST -p 6379 -a PASSWORD -c 64 -s 30 'GET {key uniform 1000000}'",
	"tairbench suite":             "tairbench suite enhanced --requests 100000",
	"tairbench suite enhanced":    "tairbench suite enhanced --host HOST -a user:password --requests 300000",
	"tairbench suite cluster":     "tairbench suite cluster --host HOST -a user:password --test-time 60",
	"tairbench suite pmem":        "tairbench suite pmem --records 20000 --groups string,hash",
	"tairbench suite essd":        "tairbench suite essd --records 200000",
	"tairbench suite persistence": "tairbench suite persistence --keys 1000000 --value-size 256 --fraction 0.5",
	"tairbench ycsb":              "tairbench ycsb run redis -P workloads/workloada -p redis.host=HOST -p redis.port=6379 -threads 32",
	"tairbench merge":             "tairbench merge pod-0.json pod-1.json -o total.json --threshold 'p99<2ms'",
	"tairbench compare":           "tairbench compare before.json after.json --fail-on 'p99>+10%'",
	"tairbench k8s":               "tairbench k8s job --parallelism 8 --image registry/tairbench:v1 -- redis -h HOST -d 60 -p 50",
	"tairbench k8s job":           "tairbench k8s job --parallelism 8 --image registry/tairbench:v1 --metrics-port 9100 -- redis -h HOST -d 60 -p 50",
	"tairbench report":            "tairbench report run.json roaring.json -o report.html",
	"tairbench history":           "tairbench history --store results.db --tag branch=main --since 30d",
	"tairbench store":             "tairbench store import results/*.json --store results.db --tag source=nightly",
	"tairbench store import":      "tairbench store import results/*.json --store results.db --tag source=nightly",
	"tairbench store export":      "tairbench store export 42 --store results.db -o run42.json",
	"tairbench gate":              "tairbench gate --store results.db --run latest --baseline 'last 7 where tag.branch=main' --markdown gate.md",
	"tairbench roaring":           "tairbench roaring --embedded --duration-per-case 2",
	"tairbench roaring stat":      "tairbench roaring stat --embedded --stat-max-card 1000000 --json stat.json",
	"tairbench bitmap":            "tairbench bitmap compare --cardinality 1e3,1e5,1e6 --universe 2^24",
	"tairbench bitmap compare":    "tairbench bitmap compare --cardinality 1e3,1e5,1e6 --universe 2^24 --shape clustered",
	"tairbench search":            "tairbench search -t write --embedded -f enwiki-abstract.xml -n 100000 -c 8",
	"tairbench search compare":    "tairbench search compare --embedded --es http://127.0.0.1:9200 -f wiki.xml -c 8",
	"tairbench search run":        "tairbench search run ecommerce-zh --embedded --es http://127.0.0.1:9200 --json track.json",
	"tairbench vector":            "tairbench vector --embedded --data clustered --n 100000 --dims 128 --ef-search 10,20,40,80,160",
	"tairbench vector suite":      "tairbench vector suite --embedded --data-dir .cache/vector --cases random-s-100",
	"tairbench wiki":              "tairbench wiki gen --docs 100000 --out wiki.xml",
	"tairbench wiki gen":          "tairbench wiki gen --docs 100000 --out wiki.xml",
	"tairbench wiki count":        "tairbench wiki count wiki.xml",
	"tairbench serve":             "tairbench serve --port 6379 --requirepass secret --metrics-addr 127.0.0.1:9121",
	"tairbench capture":           "tairbench capture -h 10.0.0.5 -d 60 -o traffic.tbt",
	"tairbench topology":          "tairbench topology up sentinel",
	"tairbench topology up":       "tairbench topology up cluster --shards 3 --replicas 1",
	"tairbench topology down":     "tairbench topology down",
	"tairbench topology show":     "tairbench topology show",
	"tairbench fit":               "tairbench fit traffic.tbt -o workload.yaml",
	"tairbench replay":            "tairbench replay traffic.tbt -h 10.0.0.6 --speed 2 --key-prefix replay:",
	"tairbench version":           "tairbench version",
}

// help is cobra's help opened by the command's first example line: the
// example, the long (or short) description, then the usage. It is a
// function, not a help template: executing a text/template reaches
// reflect's MethodByName, and with it reachable the linker keeps every
// exported method of every type that is converted to an interface (all of
// go-redis's commands, for one): megabytes of code no run calls, and the
// pages of it that starting touches.
func help(c *cobra.Command, _ []string) {
	var b strings.Builder
	if c.Example != "" {
		b.WriteString("Example: " + firstLine(c.Example) + "\n\n")
	}
	if about := cmp.Or(c.Long, c.Short); about != "" {
		b.WriteString(strings.TrimRightFunc(about, unicode.IsSpace) + "\n\n")
	}
	if c.Runnable() || c.HasSubCommands() {
		b.WriteString(c.UsageString())
	}
	fmt.Fprint(c.OutOrStdout(), b.String())
}

// firstLine is s's first non-blank line, trimmed.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}

// withExamples gives every command in the tree its example and the help
// that opens with it.
func withExamples(root *cobra.Command) {
	root.SetHelpFunc(help)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if ex, ok := examples[c.CommandPath()]; ok && c.Example == "" {
			c.Example = "  " + ex
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
