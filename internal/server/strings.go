package server

import (
	"bytes"

	"github.com/tairbench/tairbench/pkg/resp"
)

// stringValue is a Redis string.
type stringValue struct{ b []byte }

func (v *stringValue) TypeName() string    { return "string" }
func (v *stringValue) MemoryBytes() uint64 { return uint64(cap(v.b)) }

func stringModule() Module {
	return Module{Name: "string", Commands: []*Command{
		{Name: "get", Arity: 2, FirstKey: 1, LastKey: 1, Handler: cmdGet},
		{Name: "set", Arity: -3, Flags: flagWrite, FirstKey: 1, LastKey: 1, Handler: cmdSet},
	}}
}

func cmdGet(c *conn, a [][]byte) {
	v, found, ok := lookup[*stringValue](c, a[1])
	if ok {
		c.countRead(found)
	}
	switch {
	case !ok:
	case !found:
		c.out = resp.AppendNil(c.out)
	default:
		c.out = resp.AppendBulk(c.out, v.b)
	}
}

// cmdSet supports SET key value [NX|XX] [GET]; expiry options are refused
// because the embedded server has no expiry.
func cmdSet(c *conn, a [][]byte) {
	nx, xx, get := false, false, false
	for _, o := range a[3:] {
		switch {
		case bytes.EqualFold(o, []byte("nx")):
			nx = true
		case bytes.EqualFold(o, []byte("xx")):
			xx = true
		case bytes.EqualFold(o, []byte("get")):
			get = true
		case bytes.EqualFold(o, []byte("ex")), bytes.EqualFold(o, []byte("px")), bytes.EqualFold(o, []byte("exat")),
			bytes.EqualFold(o, []byte("pxat")), bytes.EqualFold(o, []byte("keepttl")):
			c.out = resp.AppendError(c.out, "ERR the embedded server does not support key expiry")
			return
		default:
			c.out = resp.AppendError(c.out, "ERR syntax error")
			return
		}
	}
	if nx && xx {
		c.out = resp.AppendError(c.out, "ERR syntax error")
		return
	}
	d := c.db()
	prev := d.get(a[1])
	old, isString := prev.(*stringValue)
	if get && prev != nil && !isString {
		c.out = append(c.out, wrongType...)
		return
	}
	if (nx && prev != nil) || (xx && prev == nil) {
		if get && prev != nil {
			c.out = resp.AppendBulk(c.out, old.b)
		} else {
			c.out = resp.AppendNil(c.out)
		}
		return
	}
	if isString && cap(old.b) >= len(a[2]) && cap(old.b) <= 2*len(a[2])+64 && !get {
		old.b = append(old.b[:0], a[2]...) // reuse the buffer
	} else {
		d.set(a[1], &stringValue{b: append([]byte(nil), a[2]...)})
	}
	switch {
	case get && prev != nil:
		c.out = resp.AppendBulk(c.out, old.b)
	case get:
		c.out = resp.AppendNil(c.out)
	default:
		c.out = resp.AppendOK(c.out)
	}
}
