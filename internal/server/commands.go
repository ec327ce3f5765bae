package server

import (
	"bytes"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/pkg/resp"
)

// Flags describe how a command is dispatched.
type Flags uint16

const (
	// FlagWrite marks commands that modify keys (write locks).
	FlagWrite Flags = 1 << iota
	flagNoAuth
	flagNoKeys
	flagAllKeys // locks every shard of the current database
	flagAllDBs  // touches every database; locks them itself
	flagSelect
	flagTxControl // MULTI, EXEC, DISCARD, WATCH: never queued
)

const flagWrite = FlagWrite

// Command is one server command.
type Command struct {
	// Name is the lower-case command name.
	Name string
	// Arity follows Redis: n means exactly n arguments (name included),
	// -n means at least n.
	Arity int
	Flags Flags
	// FirstKey, LastKey and Step locate the keys (LastKey -1 is the last argument).
	FirstKey, LastKey, Step int
	// Handler appends the reply to c.out. Locks are already held.
	Handler func(c *conn, args [][]byte)

	id int // index into a server's statistics
}

func (cmd *Command) arityOK(n int) bool {
	if cmd.Arity >= 0 {
		return n == cmd.Arity
	}
	return n >= -cmd.Arity
}

func (cmd *Command) keys(args [][]byte, l *lockSet) {
	if cmd.Flags&flagAllKeys != 0 {
		l.all = true
		return
	}
	if cmd.FirstKey <= 0 {
		return
	}
	last := cmd.LastKey
	if last < 0 {
		last = len(args) + last
	}
	step := cmd.Step
	if step <= 0 {
		step = 1
	}
	for i := cmd.FirstKey; i <= last && i < len(args); i += step {
		l.add(args[i])
	}
}

// registry is a server's command table, built from the module list
// (module.go) when the server is made.
type registry struct {
	table   map[string]*Command
	list    []*Command
	modules []Module
}

// newRegistry builds the command table from the modules' commands.
func newRegistry() *registry {
	r := &registry{table: map[string]*Command{}}
	for _, m := range modules {
		mod := m()
		r.modules = append(r.modules, mod)
		r.list = append(r.list, mod.Commands...)
	}
	for i, c := range r.list {
		c.id = i
		r.table[c.Name] = c
	}
	return r
}

// genericModule holds the connection, server and keyspace commands.
func genericModule() Module {
	return Module{Name: "generic", Commands: []*Command{
		{Name: "ping", Arity: -1, Flags: flagNoKeys, Handler: cmdPing},
		{Name: "echo", Arity: 2, Flags: flagNoKeys, Handler: func(c *conn, a [][]byte) { c.out = resp.AppendBulk(c.out, a[1]) }},
		{Name: "quit", Arity: -1, Flags: flagNoKeys | flagNoAuth, Handler: func(c *conn, _ [][]byte) { c.out = resp.AppendOK(c.out); c.closing = true }},
		{Name: "auth", Arity: -2, Flags: flagNoKeys | flagNoAuth, Handler: cmdAuth},
		{Name: "hello", Arity: -1, Flags: flagNoKeys | flagNoAuth, Handler: cmdHello},
		{Name: "acl", Arity: -2, Flags: flagNoKeys, Handler: cmdACL},
		{Name: "select", Arity: 2, Flags: flagNoKeys | flagSelect, Handler: cmdSelect},
		{Name: "client", Arity: -2, Flags: flagNoKeys, Handler: cmdClient},
		{Name: "command", Arity: -1, Flags: flagNoKeys, Handler: cmdCommand},
		{Name: "cluster", Arity: -2, Flags: flagNoKeys, Handler: cmdCluster},
		{Name: "info", Arity: -1, Flags: flagNoKeys | flagAllDBs, Handler: cmdInfo},
		{Name: "config", Arity: -2, Flags: flagNoKeys, Handler: cmdConfig},
		{Name: "dbsize", Arity: 1, Flags: flagAllKeys, Handler: func(c *conn, _ [][]byte) { c.out = resp.AppendInt(c.out, int64(c.db().count())) }},
		{Name: "flushdb", Arity: -1, Flags: flagWrite | flagAllKeys, Handler: func(c *conn, _ [][]byte) { c.db().flush(); c.out = resp.AppendOK(c.out) }},
		{Name: "flushall", Arity: -1, Flags: flagWrite | flagNoKeys | flagAllDBs, Handler: cmdFlushAll},
		{Name: "del", Arity: -2, Flags: flagWrite, FirstKey: 1, LastKey: -1, Handler: cmdDel},
		{Name: "unlink", Arity: -2, Flags: flagWrite, FirstKey: 1, LastKey: -1, Handler: cmdDel},
		{Name: "exists", Arity: -2, FirstKey: 1, LastKey: -1, Handler: cmdExists},
		{Name: "type", Arity: 2, FirstKey: 1, LastKey: 1, Handler: cmdType},
		{Name: "memory", Arity: -2, FirstKey: 2, LastKey: 2, Handler: cmdMemory},
		{Name: "keys", Arity: 2, Flags: flagAllKeys, Handler: cmdKeys},
		{Name: "scan", Arity: -2, Flags: flagAllKeys, Handler: cmdScan},
		{Name: "multi", Arity: 1, Flags: flagNoKeys | flagTxControl, Handler: cmdMulti},
		{Name: "exec", Arity: 1, Flags: flagNoKeys | flagTxControl, Handler: cmdExec},
		{Name: "discard", Arity: 1, Flags: flagNoKeys | flagTxControl, Handler: cmdDiscard},
	}}
}

func cmdPing(c *conn, a [][]byte) {
	switch len(a) {
	case 1:
		c.out = append(c.out, "+PONG\r\n"...)
	case 2:
		c.out = resp.AppendBulk(c.out, a[1])
	default:
		c.out = resp.AppendError(c.out, arityErr("ping"))
	}
}

func cmdHello(c *conn, a [][]byte) {
	proto := c.proto
	i := 1
	if len(a) > 1 {
		v, err := strconv.Atoi(string(a[1]))
		if err != nil {
			c.out = resp.AppendError(c.out, "ERR Protocol version is not an integer or out of range")
			return
		}
		if v != 2 && v != 3 {
			c.out = resp.AppendError(c.out, "NOPROTO unsupported protocol version")
			return
		}
		proto = v
		i = 2
	}
	for ; i < len(a); i++ {
		switch strings.ToLower(string(a[i])) {
		case "auth":
			if i+2 >= len(a) {
				c.out = resp.AppendError(c.out, "ERR Syntax error in HELLO option 'auth'")
				return
			}
			user, ok, msg := c.checkAuth(a[i+1 : i+3])
			if !ok {
				c.out = resp.AppendError(c.out, msg)
				return
			}
			c.login(user)
			i += 2
		case "setname":
			if i+1 >= len(a) {
				c.out = resp.AppendError(c.out, "ERR Syntax error in HELLO option 'setname'")
				return
			}
			c.name = string(a[i+1])
			i++
		default:
			c.out = resp.AppendError(c.out, fmt.Sprintf("ERR Syntax error in HELLO option '%s'", printable(a[i])))
			return
		}
	}
	if !c.authed {
		c.out = append(c.out, "-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time\r\n"...)
		return
	}
	c.proto = proto
	fields := []struct {
		k string
		v any
	}{{"server", "redis"}, {"version", "7.0.0"}, {"proto", int64(proto)}, {"id", c.id}, {"mode", "standalone"},
		{"role", "master"}, {"modules", nil}}
	if proto == 3 {
		c.out = append(c.out, '%')
		c.out = strconv.AppendInt(c.out, int64(len(fields)), 10)
		c.out = append(c.out, '\r', '\n')
	} else {
		c.out = resp.AppendArray(c.out, 2*len(fields))
	}
	for _, f := range fields {
		c.out = resp.AppendBulkString(c.out, f.k)
		switch v := f.v.(type) {
		case string:
			c.out = resp.AppendBulkString(c.out, v)
		case int64:
			c.out = resp.AppendInt(c.out, v)
		default:
			c.out = resp.AppendArray(c.out, 0)
		}
	}
}

func cmdSelect(c *conn, a [][]byte) {
	n, err := strconv.Atoi(string(a[1]))
	if err != nil {
		c.out = resp.AppendError(c.out, "ERR value is not an integer or out of range")
		return
	}
	if n < 0 || n >= len(c.s.dbs) {
		c.out = resp.AppendError(c.out, "ERR DB index is out of range")
		return
	}
	c.dbIndex = n
	c.out = resp.AppendOK(c.out)
}

func cmdClient(c *conn, a [][]byte) {
	switch strings.ToLower(string(a[1])) {
	case "setname":
		if len(a) != 3 {
			c.out = resp.AppendError(c.out, arityErr("client|setname"))
			return
		}
		c.name = string(a[2])
		c.out = resp.AppendOK(c.out)
	case "getname":
		if c.name == "" {
			c.out = resp.AppendNil(c.out)
		} else {
			c.out = resp.AppendBulkString(c.out, c.name)
		}
	case "setinfo":
		c.out = resp.AppendOK(c.out)
	case "id":
		c.out = resp.AppendInt(c.out, c.id)
	case "info":
		c.out = resp.AppendBulkString(c.out, fmt.Sprintf("id=%d addr=%s name=%s db=%d\n", c.id, c.nc.RemoteAddr(), c.name, c.dbIndex))
	default:
		c.out = resp.AppendError(c.out, fmt.Sprintf("ERR unknown subcommand '%s'. Try CLIENT HELP.", printable(a[1])))
	}
}

// cmdCommand answers COMMAND, COMMAND COUNT, COMMAND INFO and COMMAND DOCS
// with the Redis 6-style entries go-redis reads for key positions.
func cmdCommand(c *conn, a [][]byte) {
	entry := func(cmd *Command) {
		c.out = resp.AppendArray(c.out, 7)
		c.out = resp.AppendBulkString(c.out, cmd.Name)
		c.out = resp.AppendInt(c.out, int64(cmd.Arity))
		flags := []string{}
		if cmd.Flags&flagWrite != 0 {
			flags = append(flags, "write")
		} else {
			flags = append(flags, "readonly")
		}
		c.out = resp.AppendArray(c.out, len(flags))
		for _, f := range flags {
			c.out = resp.AppendSimple(c.out, f)
		}
		c.out = resp.AppendInt(c.out, int64(cmd.FirstKey))
		c.out = resp.AppendInt(c.out, int64(cmd.LastKey))
		c.out = resp.AppendInt(c.out, int64(max(cmd.Step, boolInt(cmd.FirstKey > 0))))
		c.out = resp.AppendArray(c.out, 0)
	}
	if len(a) == 1 {
		c.out = resp.AppendArray(c.out, len(c.s.reg.table))
		for _, cmd := range c.s.reg.table {
			entry(cmd)
		}
		return
	}
	switch strings.ToLower(string(a[1])) {
	case "count":
		c.out = resp.AppendInt(c.out, int64(len(c.s.reg.table)))
	case "info":
		c.out = resp.AppendArray(c.out, len(a)-2)
		for _, n := range a[2:] {
			if cmd := c.lookup(n); cmd != nil {
				entry(cmd)
			} else {
				c.out = resp.AppendNilArray(c.out)
			}
		}
	case "docs":
		c.out = resp.AppendArray(c.out, 0)
	default:
		c.out = resp.AppendError(c.out, fmt.Sprintf("ERR unknown subcommand '%s'. Try COMMAND HELP.", printable(a[1])))
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cmdCluster answers the cluster commands go-redis's cluster client needs:
// one node that owns every slot.
func cmdCluster(c *conn, a [][]byte) {
	host, portStr, _ := strings.Cut(c.s.Addr(), ":")
	if i := strings.LastIndex(c.s.Addr(), ":"); i >= 0 {
		host, portStr = c.s.Addr()[:i], c.s.Addr()[i+1:]
	}
	port, _ := strconv.Atoi(portStr)
	id := "0000000000000000000000000000000000000001"
	switch strings.ToLower(string(a[1])) {
	case "slots":
		c.out = resp.AppendArray(c.out, 1)
		c.out = resp.AppendArray(c.out, 3)
		c.out = resp.AppendInt(c.out, 0)
		c.out = resp.AppendInt(c.out, 16383)
		c.out = resp.AppendArray(c.out, 3)
		c.out = resp.AppendBulkString(c.out, host)
		c.out = resp.AppendInt(c.out, int64(port))
		c.out = resp.AppendBulkString(c.out, id)
	case "info":
		c.out = resp.AppendBulkString(c.out, "cluster_enabled:1\r\ncluster_state:ok\r\ncluster_slots_assigned:16384\r\ncluster_known_nodes:1\r\ncluster_size:1\r\n")
	case "myid":
		c.out = resp.AppendBulkString(c.out, id)
	case "keyslot":
		if len(a) != 3 {
			c.out = resp.AppendError(c.out, arityErr("cluster|keyslot"))
			return
		}
		c.out = resp.AppendInt(c.out, int64(KeySlot(a[2])))
	default:
		c.out = resp.AppendError(c.out, fmt.Sprintf("ERR unknown subcommand '%s'. Try CLUSTER HELP.", printable(a[1])))
	}
}

func cmdConfig(c *conn, a [][]byte) {
	switch strings.ToLower(string(a[1])) {
	case "get":
		c.out = resp.AppendArray(c.out, 0)
	case "resetstat":
		for i := range c.s.stats {
			c.s.stats[i].calls.Store(0)
			c.s.stats[i].failed.Store(0)
			c.s.stats[i].nanos.Store(0)
		}
		c.s.totalCmds.Store(0)
		c.out = resp.AppendOK(c.out)
	case "set":
		c.out = resp.AppendOK(c.out)
	default:
		c.out = resp.AppendError(c.out, fmt.Sprintf("ERR unknown subcommand '%s'. Try CONFIG HELP.", printable(a[1])))
	}
}

func cmdFlushAll(c *conn, _ [][]byte) {
	var ls lockSet
	ls.reset(true)
	ls.all = true
	for _, d := range c.s.dbs {
		if !c.holdsAll {
			d.lock(&ls)
		}
		d.flush()
		if !c.holdsAll {
			d.unlock(&ls)
		}
	}
	c.out = resp.AppendOK(c.out)
}

func cmdDel(c *conn, a [][]byte) {
	n := 0
	for _, k := range a[1:] {
		if c.db().del(k) {
			n++
		}
	}
	c.out = resp.AppendInt(c.out, int64(n))
}

func cmdExists(c *conn, a [][]byte) {
	n := 0
	for _, k := range a[1:] {
		if c.db().get(k) != nil {
			n++
		}
	}
	c.out = resp.AppendInt(c.out, int64(n))
}

func cmdType(c *conn, a [][]byte) {
	e := c.db().get(a[1])
	if e == nil {
		c.out = append(c.out, "+none\r\n"...)
		return
	}
	c.out = resp.AppendSimple(c.out, typeName(e))
}

// cmdMemory answers MEMORY USAGE key [SAMPLES n] as Redis does: the bytes
// the key and its value take (this server's estimate, the same one INFO
// memory adds up), or nil for a missing key. Other subcommands are refused.
func cmdMemory(c *conn, a [][]byte) {
	if !strings.EqualFold(string(a[1]), "usage") {
		c.fail(fmt.Sprintf("ERR unknown subcommand '%s'. Try MEMORY HELP.", a[1]))
		return
	}
	switch {
	case len(a) == 3:
	case len(a) == 5 && strings.EqualFold(string(a[3]), "samples"):
		if n, ok := resp.ParseInt(a[4]); !ok || n < 0 {
			c.fail(errInt)
			return
		}
	default:
		c.fail(errSyntax)
		return
	}
	v := c.db().get(a[2])
	if v == nil {
		c.out = resp.AppendNil(c.out)
		return
	}
	c.out = resp.AppendInt(c.out, int64(keyOverhead+uint64(len(a[2]))+v.MemoryBytes()))
}

func cmdKeys(c *conn, a [][]byte) {
	pattern := string(a[1])
	var keys []string
	for i := range c.db().shards {
		for k := range c.db().shards[i].m {
			if ok, _ := path.Match(pattern, k); ok {
				keys = append(keys, k)
			}
		}
	}
	c.out = resp.AppendArray(c.out, len(keys))
	for _, k := range keys {
		c.out = resp.AppendBulkString(c.out, k)
	}
}

// cmdScan walks shard by shard: the cursor is the next shard index, so a
// full scan returns every key that existed throughout it.
func cmdScan(c *conn, a [][]byte) {
	cur, err := strconv.ParseUint(string(a[1]), 10, 64)
	if err != nil {
		c.out = resp.AppendError(c.out, "ERR invalid cursor")
		return
	}
	match, typ, count := "*", "", 10
	for i := 2; i < len(a); i += 2 {
		if i+1 >= len(a) {
			c.out = resp.AppendError(c.out, "ERR syntax error")
			return
		}
		switch strings.ToLower(string(a[i])) {
		case "match":
			match = string(a[i+1])
		case "count":
			n, err := strconv.Atoi(string(a[i+1]))
			if err != nil || n < 1 {
				c.out = resp.AppendError(c.out, "ERR value is not an integer or out of range")
				return
			}
			count = n
		case "type":
			typ = strings.ToLower(string(a[i+1]))
		default:
			c.out = resp.AppendError(c.out, "ERR syntax error")
			return
		}
	}
	var keys []string
	d := c.db()
	for cur < numShards && len(keys) < count {
		for k, e := range d.shards[cur].m {
			if ok, _ := path.Match(match, k); ok && (typ == "" || typeName(e) == typ) {
				keys = append(keys, k)
			}
		}
		cur++
	}
	if cur >= numShards {
		cur = 0
	}
	c.out = resp.AppendArray(c.out, 2)
	c.out = resp.AppendBulkString(c.out, strconv.FormatUint(cur, 10))
	c.out = resp.AppendArray(c.out, len(keys))
	for _, k := range keys {
		c.out = resp.AppendBulkString(c.out, k)
	}
}

// typeName is what TYPE replies for v ("none" for a missing key).
func typeName(v Value) string {
	if v == nil {
		return "none"
	}
	return v.TypeName()
}

func cmdMulti(c *conn, _ [][]byte) {
	if c.inMulti {
		c.out = resp.AppendError(c.out, "ERR MULTI calls can not be nested")
		return
	}
	c.inMulti, c.dirty, c.queue = true, false, c.queue[:0]
	c.out = resp.AppendOK(c.out)
}

func cmdExec(c *conn, _ [][]byte) {
	if !c.inMulti {
		c.out = resp.AppendError(c.out, "ERR EXEC without MULTI")
		return
	}
	c.exec()
}

func cmdDiscard(c *conn, _ [][]byte) {
	if !c.inMulti {
		c.out = resp.AppendError(c.out, "ERR DISCARD without MULTI")
		return
	}
	c.inMulti, c.dirty, c.queue = false, false, nil
	c.out = resp.AppendOK(c.out)
}

// KeySlot returns the Redis Cluster hash slot of a key (CRC16 of the key or
// of its {hash tag}, mod 16384).
func KeySlot(key []byte) uint16 {
	if s := bytes.IndexByte(key, '{'); s >= 0 {
		if e := bytes.IndexByte(key[s+1:], '}'); e > 0 {
			key = key[s+1 : s+1+e]
		}
	}
	return crc16(key) % 16384
}

func crc16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc ^= uint16(c) << 8
		for i := 0; i < 8; i++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}
