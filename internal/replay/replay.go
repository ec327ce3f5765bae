// Package replay makes a trace (internal/trace) a load: each captured
// connection's commands, in their order, at their captured times divided
// by a speed, held RESP-encoded in memory (bounded) for the Redis driver's
// workers (a Source each) and the engine's open loop (a Pacer each). The
// trace is read twice: Scan checks all of it and counts its commands;
// Build, once the target has said where each command's keys are, places
// the key prefix, filters, and encodes.
package replay

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	driver "github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/trace"
)

// Census is what Scan found in a trace.
type Census struct {
	Meta        trace.Meta
	Commands    int64
	Connections int
	Span        time.Duration
	// Names counts each command (upper case), most first.
	Names []Count
}

// Count is a name and how often it came.
type Count = trace.Count

// Records is where a replay's records come from: a trace's reader, or a
// translation of one.
type Records interface {
	// Read reads the next record into rec; io.EOF after the last.
	Read(rec *trace.Record) error
	Meta() trace.Meta
}

// Scan reads the whole trace, refusing one that is cut short or corrupt,
// and counts its commands.
func Scan(r Records) (*Census, error) {
	c := &Census{Meta: r.Meta()}
	counts := map[string]int64{}
	conns := map[uint32]bool{}
	var rec trace.Record
	for {
		err := r.Read(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(rec.Args) == 0 {
			return nil, fmt.Errorf("record %d has no command", c.Commands+1)
		}
		counts[upper(rec.Args[0])]++
		conns[rec.Conn] = true
		c.Commands++
		c.Span = rec.At
	}
	if c.Commands == 0 {
		return nil, errors.New("the trace holds no command")
	}
	c.Connections = len(conns)
	c.Names = trace.Counts(counts)
	return c, nil
}

// NameList is the census's command names.
func (c *Census) NameList() []string {
	out := make([]string, len(c.Names))
	for i, n := range c.Names {
		out[i] = n.Name
	}
	return out
}

func upper(b []byte) string {
	for _, c := range b {
		if 'a' <= c && c <= 'z' {
			return strings.ToUpper(string(b))
		}
	}
	return string(b)
}

// Only filters a replay's commands by what they do.
type Only int

const (
	// All keeps every command.
	All Only = iota
	// Reads keeps the read-only commands (and SELECT).
	Reads
	// Writes keeps the writing commands (and SELECT).
	Writes
)

// ParseOnly reads "reads" or "writes" ("" is All).
func ParseOnly(s string) (Only, error) {
	switch s {
	case "", "all":
		return All, nil
	case "reads":
		return Reads, nil
	case "writes":
		return Writes, nil
	}
	return All, fmt.Errorf("%q: want reads or writes", s)
}

// Options shape a replay.
type Options struct {
	// KeyPrefix goes before every key.
	KeyPrefix string
	Only      Only
	// SkipUnknown drops commands the target does not know, counted,
	// instead of refusing the replay.
	SkipUnknown bool
	// Shard and Shards take connection c when c % Shards == Shard (one
	// machine's part of a replay from several).
	Shard, Shards int
	// MaxBytes refuses a replay whose commands take more memory.
	MaxBytes int64
	// MaxOps is how many command names get their own operation type; the
	// rest are "other".
	MaxOps int
}

// Other names the operation type of the commands past Options.MaxOps.
const Other = "other"

// Specs are where each command's keys are (from the target's COMMAND
// INFO), by upper-case name.
type Specs map[string]driver.KeySpec

// dropped says why a command is not replayed (empty: it is).
var dropped = map[string]string{
	"MONITOR": "it would turn the connection into a feed", "SUBSCRIBE": "it would turn the connection into a feed",
	"PSUBSCRIBE": "it would turn the connection into a feed", "SSUBSCRIBE": "it would turn the connection into a feed",
	"UNSUBSCRIBE": "it belongs to a feed", "PUNSUBSCRIBE": "it belongs to a feed", "SUNSUBSCRIBE": "it belongs to a feed",
	"SYNC": "it is a replica's", "PSYNC": "it is a replica's", "REPLCONF": "it is a replica's",
	"SHUTDOWN": "it would stop the server", "QUIT": "it would close the connection", "RESET": "it would reset the connection",
	"HELLO": "the replay speaks RESP2 and the target's credentials", "AUTH": "the target's credentials are the replay's own",
}

// wipes are commands that a key prefix cannot keep off live keys.
var wipes = map[string]bool{"FLUSHALL": true, "FLUSHDB": true, "SWAPDB": true}
