// Package tairvector is the TairVector driver (TVS.* over RESP) of
// vectors.Engine: entities are named by their base vector's number, so a
// search's keys are the ids recall is counted on.
package tairvector

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/tairbench/tairbench/internal/driver/catalog"
	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/driver/vectors"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/serverstat"
	"github.com/tairbench/tairbench/pkg/resp"
)

type tairVector struct {
	t     endpoint.Target
	index string
	admin *goredis.Client
}

// Sampler reads the server's INFO.
func (v *tairVector) Sampler() serverstat.Sampler { return redis.NewInfoSampler(v.t) }

// New connects to a TairVector server (Tair, or tairbench's embedded
// server) and uses the index named index.
func New(ctx context.Context, t endpoint.Target, index string) (vectors.Engine, error) {
	t, err := transport.ResolveLogin(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("tairvector: %w", err)
	}
	admin, err := transport.NewClient(ctx, t, 2)
	if err != nil {
		return nil, fmt.Errorf("tairvector: %w", err)
	}
	return &tairVector{t: t, index: index, admin: admin}, nil
}

func (e *tairVector) Name() string            { return "tairvector" }
func (e *tairVector) Target() endpoint.Target { return e.t }
func (e *tairVector) Param() string           { return Engine.VectorParam }
func (e *tairVector) Close() error            { return e.admin.Close() }

func (e *tairVector) Check(ctx context.Context) error {
	return redis.RequireCommands(ctx, e.t, "TairVector", "TVS.CREATEINDEX", "TVS.HSET", "TVS.KNNSEARCH", "TVS.GETINDEX")
}

func (e *tairVector) Create(ctx context.Context, s vectors.IndexSpec) error {
	if err := e.admin.Do(ctx, "TVS.DELINDEX", e.index).Err(); err != nil {
		return fmt.Errorf("tairvector: delete index %s: %w", e.index, err)
	}
	args := []any{"TVS.CREATEINDEX", e.index, s.Dims, s.Algorithm, s.Metric.String()}
	if s.Algorithm == "HNSW" {
		args = append(args, "M", s.M, "ef_construct", s.EfConstruct)
	}
	if err := e.admin.Do(ctx, args...).Err(); err != nil {
		return fmt.Errorf("tairvector: create index %s: %w", e.index, err)
	}
	return nil
}

func (e *tairVector) Finish(context.Context) error { return nil } // searchable as written

// Live implements vectors.Engine: TairVector searches what it was given.
func (e *tairVector) Live(context.Context) error { return nil }

// Memory reads TVS.GETINDEX's index_data_size + attribute_data_size and
// INFO memory's used_memory.
func (e *tairVector) Memory(ctx context.Context) (vectors.Memory, error) {
	var m vectors.Memory
	kv, err := e.admin.Do(ctx, "TVS.GETINDEX", e.index).StringSlice()
	if err != nil {
		return m, fmt.Errorf("tairvector: getindex: %w", err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i] == "index_data_size" || kv[i] == "attribute_data_size" {
			n, _ := strconv.ParseInt(kv[i+1], 10, 64)
			m.Index += n
		}
	}
	info, err := e.admin.Info(ctx, "memory").Result()
	if err != nil {
		return m, fmt.Errorf("tairvector: info memory: %w", err)
	}
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "used_memory:"); ok {
			m.Used, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	m.Detail = "TVS.GETINDEX index_data_size + attribute_data_size; INFO memory used_memory"
	return m, nil
}

// EncodeInsert renders a pipeline of TVS.HSET index N VECTOR [..], with
// attr A when attrs are given.
func (e *tairVector) EncodeInsert(dst []byte, first int, rows []float32, dims int, attr string, attrs []int32) []byte {
	var num [24]byte
	for i := 0; i*dims < len(rows); i++ {
		if attrs != nil {
			dst = append(dst, "*7\r\n$8\r\nTVS.HSET\r\n"...)
		} else {
			dst = append(dst, "*5\r\n$8\r\nTVS.HSET\r\n"...)
		}
		dst = resp.AppendBulkString(dst, e.index)
		dst = resp.AppendBulk(dst, strconv.AppendInt(num[:0], int64(first+i), 10))
		dst = append(dst, "$6\r\nVECTOR\r\n"...)
		dst = appendVectorBulk(dst, rows[i*dims:(i+1)*dims])
		if attrs != nil {
			dst = resp.AppendBulkString(dst, attr)
			dst = resp.AppendBulk(dst, strconv.AppendInt(num[:0], int64(attrs[i]), 10))
		}
	}
	return dst
}

// EncodeSearch renders TVS.KNNSEARCH index k [..] ["attr<N"] [ef_search
// param] (no breadth when param is 0: FLAT); the filter is the positional
// one after the vector.
func (e *tairVector) EncodeSearch(dst []byte, q []float32, k, param int, f vectors.Filter) []byte {
	var num [24]byte
	n := 4
	if param > 0 {
		n += 2
	}
	if f.On() {
		n++
	}
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(n), 10)
	dst = append(dst, "\r\n$13\r\nTVS.KNNSEARCH\r\n"...)
	dst = resp.AppendBulkString(dst, e.index)
	dst = resp.AppendBulk(dst, strconv.AppendInt(num[:0], int64(k), 10))
	dst = appendVectorBulk(dst, q)
	if f.On() {
		dst = resp.AppendBulkString(dst, FilterText(f))
	}
	if param > 0 {
		dst = append(dst, "$9\r\nef_search\r\n"...)
		dst = resp.AppendBulk(dst, strconv.AppendInt(num[:0], int64(param), 10))
	}
	return dst
}

// FilterText is f as a TairVector filter expression ("attr<1000").
func FilterText(f vectors.Filter) string { return f.Field + "<" + strconv.Itoa(f.Below) }

// appendVectorBulk writes v as a bulk string in the SDKs' text form: the
// text goes after dst first, then moves up behind its length header, so
// nothing is allocated once dst has room.
func appendVectorBulk(dst []byte, v []float32) []byte {
	start := len(dst)
	dst = append(dst, '[')
	for i, f := range v {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendFloat(dst, float64(f), 'g', -1, 32)
	}
	dst = append(dst, ']')
	var hdr [24]byte
	h := strconv.AppendInt(append(hdr[:0], '$'), int64(len(dst)-start), 10)
	h = append(h, '\r', '\n')
	dst = append(dst, h...) // room for the header
	copy(dst[start+len(h):], dst[start:len(dst)-len(h)])
	copy(dst[start:], h)
	return append(dst, '\r', '\n')
}

func (e *tairVector) NewClient(ctx context.Context) (vectors.Client, error) {
	c, err := transport.Dial(ctx, e.t)
	if err != nil {
		return nil, fmt.Errorf("tairvector %s: %w", e.t.Addr, err)
	}
	return &client{c: c}, nil
}

type client struct {
	c    *transport.Conn
	rep  resp.Reply
	args [][]byte
}

func (c *client) Close() error { return c.c.Close() }

// YieldTo implements engine.Yielder.
func (c *client) YieldTo(yield func(time.Time) time.Time) { c.c.YieldTo(yield) }

func (c *client) Insert(_ context.Context, req []byte, n int) (int, string, error) {
	if err := c.c.Write(req); err != nil {
		return 0, "", err
	}
	failed, reason := 0, ""
	for i := 0; i < n; i++ {
		if err := c.c.Read(&c.rep); err != nil {
			return failed, reason, err
		}
		if c.rep.IsError() {
			if failed++; reason == "" {
				reason = string(c.rep.Err)
			}
		}
	}
	return failed, reason, nil
}

func (c *client) Search(_ context.Context, req []byte, ids []uint32) ([]uint32, error) {
	if err := c.c.Write(req); err != nil {
		return ids, err
	}
	var err error
	c.args, err = c.c.ReadStrings(c.args[:0])
	if err != nil {
		if re, ok := err.(*transport.ReplyError); ok {
			return ids, &engine.ReplyError{Err: re}
		}
		return ids, err
	}
	for i := 0; i < len(c.args); i += 2 {
		n, ok := resp.ParseInt(c.args[i])
		if !ok || n < 0 || n > 1<<32-1 {
			return ids, vectors.Refusal("a key %q that is not a base vector's number", c.args[i])
		}
		ids = append(ids, uint32(n))
	}
	return ids, nil
}

// Engine is TairVector's descriptor.
var Engine = catalog.Engine{Name: "tairvector", Product: "TairVector", Reach: catalog.RESP, VectorParam: "ef_search",
	Vectors: func(ctx context.Context, o fts.Options) (vectors.Engine, error) { return New(ctx, o.Target, o.Index) }}
