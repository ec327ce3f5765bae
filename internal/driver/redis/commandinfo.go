package redis

import (
	"context"
	"fmt"
	"strings"

	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
)

// KeySpec is where a command's keys are and what it does, as the server
// says in COMMAND INFO.
type KeySpec struct {
	// Known is false for a command the server does not know.
	Known bool
	// First and Last are the first and last key's positions (the name
	// is 0; Last below 0 counts from the end); Step the gap between
	// keys. First 0: no key.
	First, Last, Step int
	// Movable: where the keys are depends on the arguments (EVAL's
	// numkeys, ZUNIONSTORE's), not First, Last and Step alone.
	Movable bool
	// Write and ReadOnly are the command's flags.
	Write, ReadOnly bool
}

// Keys returns the positions of the keys among n arguments (the name
// first), for a command whose keys do not move.
func (k KeySpec) Keys(n int) []int {
	if !k.Known || k.First <= 0 || k.First >= n {
		return nil
	}
	last := k.Last
	if last < 0 {
		last = n + last
	}
	last = min(last, n-1)
	var out []int
	for i := k.First; i <= last; i += max(k.Step, 1) {
		out = append(out, i)
	}
	return out
}

// CommandSpecs asks t, with COMMAND INFO, where the keys of the commands
// names (lower or upper case) are; the map is keyed by upper-case name.
func CommandSpecs(ctx context.Context, t endpoint.Target, names []string) (map[string]KeySpec, error) {
	c, err := transport.NewClient(ctx, t, 1)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	out := make(map[string]KeySpec, len(names))
	for start := 0; start < len(names); start += 100 {
		part := names[start:min(start+100, len(names))]
		args := []any{"COMMAND", "INFO"}
		for _, n := range part {
			args = append(args, n)
		}
		infos, err := c.Do(ctx, args...).Slice()
		if err != nil {
			return nil, fmt.Errorf("%s: COMMAND INFO: %w", t.Addr, err)
		}
		for i, n := range part {
			var info []any
			if i < len(infos) {
				info, _ = infos[i].([]any)
			}
			out[strings.ToUpper(n)] = parseKeySpec(info)
		}
	}
	return out, nil
}

// parseKeySpec reads one COMMAND INFO entry: name, arity, flags, first
// key, last key, step, …; nil is a command the server does not know.
func parseKeySpec(info []any) KeySpec {
	if len(info) < 6 {
		return KeySpec{}
	}
	k := KeySpec{Known: true, First: asInt(info[3]), Last: asInt(info[4]), Step: asInt(info[5])}
	flags, _ := info[2].([]any)
	if m, ok := info[2].(map[any]struct{}); ok { // RESP3 sets
		for f := range m {
			flags = append(flags, f)
		}
	}
	for _, f := range flags {
		switch s, _ := f.(string); strings.ToLower(s) {
		case "write":
			k.Write = true
		case "readonly":
			k.ReadOnly = true
		case "movablekeys":
			k.Movable = true
		}
	}
	return k
}

// asInt is an integer reply's value (0 for anything else).
func asInt(v any) int {
	n, _ := v.(int64)
	return int(n)
}
