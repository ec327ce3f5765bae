package server

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/tairbench/tairbench/pkg/resp"
)

// ServerVersion is the redis_version the server reports.
const ServerVersion = "7.0.0"

func cmdInfo(c *conn, a [][]byte) {
	want := map[string]bool{}
	for _, s := range a[1:] {
		want[strings.ToLower(string(s))] = true
	}
	all := want["all"] || want["everything"]
	def := len(want) == 0 || want["default"]
	show := func(name string, inDefault bool) bool { return all || want[name] || (def && inDefault) }
	var b strings.Builder
	s := c.s
	if show("server", true) {
		fmt.Fprintf(&b, "# Server\r\nredis_version:%s\r\nredis_mode:standalone\r\nserver_name:tairbench-embedded\r\nos:%s %s\r\nprocess_id:%d\r\nrun_id:%s\r\ntcp_port:%s\r\nuptime_in_seconds:%d\r\n\r\n",
			ServerVersion, runtime.GOOS, runtime.GOARCH, os.Getpid(), s.runID, portOf(s.Addr()), int64(time.Since(s.started).Seconds()))
	}
	if show("clients", true) {
		fmt.Fprintf(&b, "# Clients\r\nconnected_clients:%d\r\nmaxclients:%d\r\n\r\n", s.clients.Load(), s.cfg.MaxClients)
	}
	var keys []int
	if show("memory", true) || show("keyspace", true) {
		var dataset uint64
		types := map[string]int{}
		keys = make([]int, len(s.dbs))
		var ls lockSet
		ls.reset(false)
		ls.all = true
		for i, d := range s.dbs {
			if !c.holdsAll {
				d.lock(&ls)
			}
			dataset += d.memory(types)
			keys[i] = d.count()
			if !c.holdsAll {
				d.unlock(&ls)
			}
		}
		if show("memory", true) {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			fmt.Fprintf(&b, "# Memory\r\nused_memory:%d\r\nused_memory_human:%s\r\nused_memory_dataset:%d\r\n"+
				"used_memory_go_heap:%d\r\nused_memory_rss:%d\r\npending_request_bytes:%d\r\n",
				dataset, human(dataset), dataset, ms.HeapAlloc, rss(ms.Sys), s.pending.used.Load())
			for _, mod := range c.s.reg.modules {
				if mod.InfoKeys != "" {
					fmt.Fprintf(&b, "%s:%d\r\n", mod.InfoKeys, types[mod.TypeName])
				}
			}
			b.WriteString("mem_allocator:go\r\n\r\n")
		}
	}
	if show("stats", true) {
		fmt.Fprintf(&b, "# Stats\r\ntotal_connections_received:%d\r\ntotal_commands_processed:%d\r\nrejected_connections:%d\r\n"+
			"keyspace_hits:%d\r\nkeyspace_misses:%d\r\n\r\n",
			s.totalConns.Load(), s.totalCmds.Load(), s.rejected.Load(), s.keyspaceHits.Load(), s.keyspaceMisses.Load())
	}
	if show("commandstats", false) {
		b.WriteString("# Commandstats\r\n")
		for _, cmd := range c.s.reg.list {
			st := &s.stats[cmd.id]
			if n := st.calls.Load(); n > 0 {
				usec := st.nanos.Load() / 1000
				fmt.Fprintf(&b, "cmdstat_%s:calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=0,failed_calls=%d\r\n", cmd.Name, n, usec,
					float64(usec)/float64(n), st.failed.Load())
			}
		}
		b.WriteString("\r\n")
	}
	if show("keyspace", true) {
		b.WriteString("# Keyspace\r\n")
		for i, n := range keys {
			if n > 0 {
				fmt.Fprintf(&b, "db%d:keys=%d,expires=0,avg_ttl=0\r\n", i, n)
			}
		}
	}
	c.out = resp.AppendBulkString(c.out, b.String())
}

func portOf(addr string) string {
	if i := strings.LastIndex(addr, ":"); i >= 0 {
		return addr[i+1:]
	}
	return addr
}

func human(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2fG", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2fM", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.2fK", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}

// rss is the real resident size, or what the Go runtime obtained from the
// system where that cannot be read.
func rss(sys uint64) uint64 {
	if r := residentBytes(); r > 0 {
		return r
	}
	return sys
}
