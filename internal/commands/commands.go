// Package commands is what tairbench knows of Redis and Tair commands, in
// one table: each command's module, whether it writes, whether its reply
// tells a missing key, and how --preload gives a read command's key a
// value. Miss counting and preload read it; the embedded server's own
// command table is held to it by a test. It is plain data: it imports
// nothing of tairbench.
package commands

import "strings"

// Holds is what one preloaded key takes beside its name.
type Holds uint8

const (
	// Value is a __DATA__ value (its size, and some overhead).
	Value Holds = iota
	// Member is one short member or field.
	Member
	// RoaringRun is a TairRoaring run of bits [0, r2): a container per
	// 65,536 bits.
	RoaringRun
)

// Fill is how --preload makes a read command's key exist: the write's
// template, with {key} for the key and {end} for the last offset
// __RAND2__ draws, what one key holds, and how to say so.
type Fill struct {
	Template string
	Holds    Holds
	Shape    string
}

// Info is one command.
type Info struct {
	// Name is upper case; Module names its data type or Tair module.
	Name, Module string
	// Write: it makes or changes its key, so it needs no preload.
	Write bool
	// NoKey: it names no key (MULTI, EXEC), so it needs no preload.
	NoKey bool
	// Silent: its reply (an integer) is the same for a missing key, so
	// its misses cannot be counted.
	Silent bool
	// Fill, for a read, is how --preload fills its key (nil: unknown).
	Fill *Fill
}

var (
	value   = &Fill{"SET {key} __DATA__", Value, "a __DATA__ value"}
	hash    = &Fill{"HSET {key} f __DATA__", Value, "a hash of one field f"}
	set     = &Fill{"SADD {key} m", Member, "a set of one member m"}
	list    = &Fill{"RPUSH {key} __DATA__", Value, "a list of one __DATA__ value"}
	roaring = &Fill{"TR.SETRANGE {key} 0 {end}", RoaringRun, "the run [0, r2) of TairRoaring bits"}
)

// table is every command tairbench knows, by module.
var table = []Info{
	{Name: "GET", Module: "string", Fill: value},
	{Name: "STRLEN", Module: "string", Silent: true, Fill: value},
	{Name: "GETRANGE", Module: "string", Fill: value},
	{Name: "SET", Module: "string", Write: true},
	{Name: "SETRANGE", Module: "string", Write: true},
	{Name: "APPEND", Module: "string", Write: true},
	{Name: "INCR", Module: "string", Write: true},
	{Name: "INCRBY", Module: "string", Write: true},
	{Name: "EXISTS", Module: "generic", Silent: true, Fill: value},
	{Name: "DEL", Module: "generic", Write: true},
	{Name: "MULTI", Module: "generic", NoKey: true},
	{Name: "EXEC", Module: "generic", NoKey: true},
	{Name: "GETBIT", Module: "bitmap", Silent: true, Fill: value},
	{Name: "BITCOUNT", Module: "bitmap", Silent: true, Fill: value},
	{Name: "BITPOS", Module: "bitmap", Silent: true},
	{Name: "SETBIT", Module: "bitmap", Write: true},
	{Name: "HGETALL", Module: "hash", Fill: hash},
	{Name: "HLEN", Module: "hash", Silent: true},
	{Name: "HEXISTS", Module: "hash", Silent: true},
	{Name: "HSET", Module: "hash", Write: true},
	{Name: "SMEMBERS", Module: "set", Fill: set},
	{Name: "SCARD", Module: "set", Silent: true, Fill: set},
	{Name: "SISMEMBER", Module: "set", Silent: true},
	{Name: "SMISMEMBER", Module: "set", Silent: true},
	{Name: "SADD", Module: "set", Write: true},
	{Name: "LRANGE", Module: "list", Fill: list},
	{Name: "LLEN", Module: "list", Silent: true, Fill: list},
	{Name: "LPUSH", Module: "list", Write: true},
	{Name: "RPUSH", Module: "list", Write: true},
	{Name: "ZCARD", Module: "zset", Silent: true},
	{Name: "ZADD", Module: "zset", Write: true},
	{Name: "TR.GETBIT", Module: "TairRoaring", Silent: true, Fill: roaring},
	{Name: "TR.GETBITS", Module: "TairRoaring", Silent: true, Fill: roaring},
	{Name: "TR.BITCOUNT", Module: "TairRoaring", Silent: true, Fill: roaring},
	{Name: "TR.BITPOS", Module: "TairRoaring", Silent: true, Fill: roaring},
	{Name: "TR.RANK", Module: "TairRoaring", Silent: true, Fill: roaring},
	{Name: "TR.MIN", Module: "TairRoaring", Silent: true, Fill: roaring},
	{Name: "TR.MAX", Module: "TairRoaring", Silent: true, Fill: roaring},
	{Name: "TR.SCAN", Module: "TairRoaring", Silent: true, Fill: roaring},
	{Name: "TR.RANGE", Module: "TairRoaring", Fill: roaring},
	{Name: "TR.STAT", Module: "TairRoaring", Fill: roaring},
	{Name: "TR.JACCARD", Module: "TairRoaring", Silent: true},
	{Name: "TR.CONTAINS", Module: "TairRoaring", Silent: true},
	{Name: "TR.BITOPCARD", Module: "TairRoaring", Silent: true},
	{Name: "TR.SETBIT", Module: "TairRoaring", Write: true},
	{Name: "TR.SETBITS", Module: "TairRoaring", Write: true},
	{Name: "TR.SETRANGE", Module: "TairRoaring", Write: true},
	{Name: "TR.APPENDBITARRAY", Module: "TairRoaring", Write: true},
	{Name: "TR.FLIPRANGE", Module: "TairRoaring", Write: true},
	{Name: "TR.CLEARBITS", Module: "TairRoaring", Write: true},
}

// byName indexes table.
var byName = func() map[string]Info {
	m := make(map[string]Info, len(table))
	for _, c := range table {
		m[c.Name] = c
	}
	return m
}()

// Lookup returns what is known of the command named name (any case).
func Lookup(name string) (Info, bool) {
	c, ok := byName[strings.ToUpper(name)]
	return c, ok
}

// All returns the table, in its order.
func All() []Info { return append([]Info(nil), table...) }

// ShowsMiss says whether the reply to command (its first word names it)
// tells a missing key: a null or an empty array, which the workers count
// as misses. A command not in the table is taken to show one.
func ShowsMiss(command string) bool {
	name, _, _ := strings.Cut(strings.TrimSpace(command), " ")
	c, ok := Lookup(name)
	return !ok || !c.Silent
}

// keyless are commands that name no key (their first argument is not one).
var keyless = map[string]bool{
	"PING": true, "ECHO": true, "INFO": true, "SELECT": true, "MULTI": true, "EXEC": true, "DISCARD": true,
	"UNWATCH": true, "AUTH": true, "HELLO": true, "CLIENT": true, "CONFIG": true, "COMMAND": true, "SCAN": true,
	"KEYS": true, "DBSIZE": true, "FLUSHALL": true, "FLUSHDB": true, "TIME": true, "PUBLISH": true, "SUBSCRIBE": true,
	"PSUBSCRIBE": true, "UNSUBSCRIBE": true, "PUNSUBSCRIBE": true, "SCRIPT": true, "FUNCTION": true, "SLOWLOG": true,
	"LATENCY": true, "MEMORY": true, "CLUSTER": true, "READONLY": true, "READWRITE": true, "WAIT": true, "QUIT": true,
	"RESET": true, "SAVE": true, "BGSAVE": true, "BGREWRITEAOF": true, "LASTSAVE": true, "MONITOR": true, "ACL": true,
	"RANDOMKEY": true, "SWAPDB": true, "DEBUG": true, "MODULE": true, "SHUTDOWN": true, "ROLE": true, "LOLWUT": true,
}

// allKeys are commands whose every argument is a key.
var allKeys = map[string]bool{"MGET": true, "DEL": true, "UNLINK": true, "EXISTS": true, "TOUCH": true, "WATCH": true,
	"SINTER": true, "SUNION": true, "SDIFF": true, "PFCOUNT": true}

// KeyPositions returns the positions of a command's keys among its arguments
// (the name first), from what tairbench knows of Redis's commands: the
// first argument of most; every argument of MGET, DEL, …; every other of
// MSET; EVAL's numkeys. Nil for a command that names none.
func KeyPositions(name string, n int) []int {
	switch {
	case n < 2 || keyless[name]:
		return nil
	case allKeys[name]:
		return Every(1, n, 1)
	case name == "MSET" || name == "MSETNX":
		return Every(1, n, 2)
	case name == "EVAL" || name == "EVALSHA" || name == "EVAL_RO" || name == "EVALSHA_RO" || name == "FCALL":
		return nil // their keys follow numkeys: left unpatterned
	case name == "BITOP" && n > 2:
		return Every(2, n, 1)
	case name == "TR.BITOP" && n > 2: // TR.BITOP destkey op key [key ...]
		return append([]int{1}, Every(3, n, 1)...)
	case name == "TR.BITOPCARD" && n > 2:
		return Every(2, n, 1)
	case name == "RENAME" || name == "RENAMENX" || name == "SMOVE" || name == "RPOPLPUSH" || name == "LMOVE" || name == "COPY":
		return []int{1, 2}[:min(2, n-1)]
	}
	return []int{1}
}

// Every is every step-th position from from, below n.
func Every(from, n, step int) []int {
	var out []int
	for i := from; i < n; i += step {
		out = append(out, i)
	}
	return out
}

// ValuePositions are where a command's values are (their content is the
// user's; their size is what a workload keeps).
func ValuePositions(name string, n int) []int {
	switch name {
	case "SET", "SETNX", "GETSET", "APPEND", "LPUSHX", "RPUSHX", "TR.APPENDBITARRAY":
		return []int{2}
	case "SETEX", "PSETEX", "HSETNX", "LSET":
		return []int{3}
	case "HSET", "HMSET":
		return Every(3, n, 2)
	case "LPUSH", "RPUSH", "SADD", "PFADD":
		return Every(2, n, 1)
	case "MSET", "MSETNX":
		return Every(2, n, 2)
	}
	return nil
}
