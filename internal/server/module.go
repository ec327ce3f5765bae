package server

// Value is one stored value. Each module defines its value types; the
// keyspace knows only this interface.
type Value interface {
	// TypeName is what TYPE replies ("string", "tairroaring", …).
	TypeName() string
	// MemoryBytes estimates the value's memory (for INFO memory).
	MemoryBytes() uint64
}

// Module is a group of commands, usually with a value type of its own.
type Module struct {
	Name     string
	Commands []*Command
	// InfoKeys, when set, is the INFO memory field that counts the keys
	// whose values have the type name TypeName (tairroaring_keys, …).
	InfoKeys, TypeName string
}

// modules are the server's modules, in the order INFO lists them. A new
// module is one file defining a func() Module, plus one line here.
var modules = []func() Module{
	genericModule,
	stringModule,
	roaringModule,
	searchModule,
	tairvectorModule,
}

// lookup returns the value at key as a T. found is false for a missing
// key; ok is false, after replying WRONGTYPE, when the key holds another type.
func lookup[T Value](c *conn, key []byte) (v T, found, ok bool) {
	got := c.db().get(key)
	if got == nil {
		return v, false, true
	}
	v, ok = got.(T)
	if !ok {
		c.out = append(c.out, wrongType...)
		return v, true, false
	}
	return v, true, true
}

// wrongType is Redis's reply to a command on a key of another type.
const wrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"

// countRead counts a read's lookup as a keyspace hit or miss.
func (c *conn) countRead(found bool) {
	if found {
		c.s.keyspaceHits.Add(1)
	} else {
		c.s.keyspaceMisses.Add(1)
	}
}
