package redis

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/serverstat"
)

// InfoSampler reads INFO on a connection of its own, for the server's
// timeline (serverstat.Sampler). It reconnects after a failure.
type InfoSampler struct {
	t    endpoint.Target
	conn *transport.Conn
}

// NewInfoSampler returns a sampler of t's INFO.
func NewInfoSampler(t endpoint.Target) *InfoSampler {
	t.Timeout = min(max(t.Timeout, 0), time.Second)
	if t.Timeout == 0 {
		t.Timeout = time.Second
	}
	return &InfoSampler{t: t}
}

// Source implements serverstat.Sampler.
func (s *InfoSampler) Source() string { return "INFO" }

// Expected implements serverstat.Sampler.
func (s *InfoSampler) Expected() []serverstat.Metric {
	return []serverstat.Metric{serverstat.Commands, serverstat.CPUSeconds, serverstat.UsedMemory, serverstat.Clients}
}

// Read implements serverstat.Sampler.
func (s *InfoSampler) Read(ctx context.Context) (serverstat.Reading, error) {
	if s.conn == nil {
		// Not tied to ctx: an interrupted run still takes its final
		// reading, for the reconciliation (the timeout bounds it).
		c, err := transport.Dial(context.WithoutCancel(ctx), s.t)
		if err != nil {
			return serverstat.Reading{}, err
		}
		s.conn = c
	}
	info, err := s.conn.DoString("INFO", "all")
	if err != nil {
		_ = s.conn.Close()
		s.conn = nil
		return serverstat.Reading{}, err
	}
	return ParseInfo(time.Now(), info), nil
}

// LocalAddr is the sampler's own end of its connection ("" before its
// first reading): the client a MONITOR feed names for its INFO.
func (s *InfoSampler) LocalAddr() string {
	if s.conn == nil {
		return ""
	}
	return s.conn.NetConn.LocalAddr().String()
}

// Close implements serverstat.Sampler.
func (s *InfoSampler) Close() error {
	if s.conn == nil {
		return nil
	}
	return s.conn.Close()
}

// ParseInfo reads INFO's "name:value" lines into a Reading: the commands
// processed, CPU seconds, used memory, connected clients, uptime, run_id
// and commandstats.
func ParseInfo(at time.Time, info string) serverstat.Reading {
	r := serverstat.Reading{At: at, Calls: map[string]int64{}, Rejected: map[string]int64{}, Failed: map[string]int64{}}
	var cpu float64
	cpuParts := 0
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		if name, ok := strings.CutPrefix(k, "cmdstat_"); ok {
			parseCmdstat(&r, strings.ToLower(name), v)
			continue
		}
		if k == "run_id" {
			r.Life = v
			continue
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			continue
		}
		switch k {
		case "total_commands_processed":
			r.Set(serverstat.Commands, x)
		case "used_cpu_user", "used_cpu_sys":
			cpu += x
			cpuParts++
		case "used_memory":
			r.Set(serverstat.UsedMemory, x)
		case "connected_clients":
			r.Set(serverstat.Clients, x)
		case "keyspace_misses":
			r.Set(serverstat.KeyspaceMisses, x)
		case "uptime_in_seconds":
			r.Set(serverstat.Uptime, x)
		}
	}
	if cpuParts == 2 {
		r.Set(serverstat.CPUSeconds, cpu)
	}
	addParents(r.Calls)
	addParents(r.Rejected)
	addParents(r.Failed)
	return r
}

// addParents counts a container command's subcommands under its own name
// too ("config|get" and "config|set" as "config"), as Redis 7 counts them
// apart and a client counts the command: a name Redis gave itself is
// left as it is.
func addParents(m map[string]int64) {
	sums := map[string]int64{}
	for name, n := range m {
		if parent, _, ok := strings.Cut(name, "|"); ok {
			sums[parent] += n
		}
	}
	for parent, n := range sums {
		if _, given := m[parent]; !given {
			m[parent] = n
		}
	}
}

// parseCmdstat reads one commandstats line's calls, rejected_calls and
// failed_calls ("calls=5,usec=9,usec_per_call=1.80,rejected_calls=0,failed_calls=0").
func parseCmdstat(r *serverstat.Reading, name, v string) {
	for _, kv := range strings.Split(v, ",") {
		f, n, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		c, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			continue
		}
		switch f {
		case "calls":
			r.Calls[name] = c
		case "rejected_calls":
			r.Rejected[name] = c
		case "failed_calls":
			r.Failed[name] = c
		}
	}
}
