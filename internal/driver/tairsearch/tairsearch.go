// Package tairsearch is the TairSearch driver (TFT.* over RESP) of fts.Engine.
package tairsearch

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/tairbench/tairbench/internal/driver/catalog"
	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/driver/yieldconn"

	"github.com/tairbench/tairbench/internal/serverstat"

	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"

	goredis "github.com/redis/go-redis/v9"
)

type tairSearch struct {
	o     fts.Options
	admin *goredis.Client
}

func New(o fts.Options) (fts.Engine, error) {
	if o.Index == "" {
		o.Index = "wiki"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The login form that works is kept for the workers' connections.
	t, err := transport.ResolveLogin(ctx, o.Target)
	if err != nil {
		return nil, fmt.Errorf("tairsearch: %w", err)
	}
	o.Target = t
	admin, err := transport.NewClient(ctx, o.Target, 2)
	if err != nil {
		return nil, fmt.Errorf("tairsearch: %w", err)
	}
	return &tairSearch{o: o, admin: admin}, nil
}

func (e *tairSearch) Name() string { return "tairsearch" }

func (e *tairSearch) Reset(ctx context.Context) error {
	if err := e.admin.Del(ctx, e.o.Index).Err(); err != nil {
		return fmt.Errorf("tairsearch: %w", err)
	}
	if err := e.admin.Do(ctx, "TFT.CREATEINDEX", e.o.Index, e.o.IndexBody()).Err(); err != nil {
		return fmt.Errorf("tairsearch: create index: %w", err)
	}
	return nil
}

func (e *tairSearch) Check(ctx context.Context) error {
	return redis.RequireCommands(ctx, e.o.Target, "TairSearch", "TFT.CREATEINDEX", "TFT.ADDDOC", "TFT.MADDDOC", "TFT.SEARCH")
}

func (e *tairSearch) Ensure(ctx context.Context) error {
	n, err := e.admin.Exists(ctx, e.o.Index).Result()
	if err != nil {
		return fmt.Errorf("tairsearch: %w", err)
	}
	if n > 0 {
		return nil
	}
	if err := e.admin.Do(ctx, "TFT.CREATEINDEX", e.o.Index, e.o.IndexBody()).Err(); err != nil {
		return fmt.Errorf("tairsearch: create index: %w", err)
	}
	return nil
}

func (e *tairSearch) Refresh(context.Context) error { return nil } // writes are searchable at once

func (e *tairSearch) Count(ctx context.Context) (int64, error) {
	n, err := e.admin.Do(ctx, "TFT.DOCNUM", e.o.Index).Int64()
	if err != nil {
		return 0, fmt.Errorf("tairsearch: docnum: %w", err)
	}
	return n, nil
}

func (e *tairSearch) Probe(ctx context.Context, query []byte) (fts.Hits, error) {
	s, err := e.admin.Do(ctx, "TFT.SEARCH", e.o.Index, string(query)).Text()
	if err != nil {
		return fts.Hits{}, fmt.Errorf("tairsearch: search: %w", err)
	}
	return fts.ParseHits([]byte(s))
}

func (e *tairSearch) Memory(ctx context.Context) (fts.Memory, error) {
	info, err := e.admin.Info(ctx, "memory").Result()
	if err != nil {
		return fts.Memory{}, fmt.Errorf("tairsearch: info memory: %w", err)
	}
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return fts.Memory{Used: n, Detail: "INFO memory used_memory"}, nil
		}
	}
	return fts.Memory{}, errors.New("tairsearch: INFO memory has no used_memory")
}

func (e *tairSearch) Close() error { return e.admin.Close() }

func (e *tairSearch) NewClient(ctx context.Context) (fts.Client, error) {
	tc := &tairClient{index: e.o.Index}
	c, err := transport.NewYieldingClient(ctx, e.o.Target, &tc.y)
	if err != nil {
		return nil, fmt.Errorf("tairsearch %s: %w", e.o.Target.Addr, err)
	}
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("tairsearch %s: %w", e.o.Target.Addr, err)
	}
	tc.c = c
	return tc, nil
}

type tairClient struct {
	c     *goredis.Client
	index string
	args  []any
	// y makes the connection's reads yield at the engine's interval ends.
	y yieldconn.Yield
}

// YieldTo implements engine.Yielder.
func (c *tairClient) YieldTo(yield func(time.Time) time.Time) { c.y.Set(yield) }

func isReply(err error) bool {
	var re goredis.Error
	return errors.As(err, &re) && !errors.Is(err, goredis.Nil)
}

func (c *tairClient) Write(ctx context.Context, docs []fts.Encoded, bulk bool) (int, string, error) {
	if !bulk {
		failed, reason := 0, ""
		for _, d := range docs {
			err := c.c.Do(ctx, "TFT.ADDDOC", c.index, d.JSON, "WITH_ID", d.ID).Err()
			switch {
			case err == nil:
			case isReply(err):
				if failed++; reason == "" {
					reason = err.Error()
				}
			default:
				return failed, reason, err
			}
		}
		return failed, reason, nil
	}
	c.args = append(c.args[:0], "TFT.MADDDOC", c.index)
	for _, d := range docs {
		c.args = append(c.args, d.JSON, d.ID)
	}
	err := c.c.Do(ctx, c.args...).Err()
	switch {
	case err == nil:
		return 0, "", nil
	case isReply(err): // MADDDOC is atomic: the whole batch failed
		return len(docs), err.Error(), nil
	}
	return 0, "", err
}

func (c *tairClient) Search(ctx context.Context, query []byte, cache bool) (int64, error) {
	var cmd *goredis.Cmd
	if cache {
		cmd = c.c.Do(ctx, "TFT.SEARCH", c.index, query, "use_cache")
	} else {
		cmd = c.c.Do(ctx, "TFT.SEARCH", c.index, query)
	}
	if err := cmd.Err(); err != nil {
		if isReply(err) {
			return 0, &engine.ReplyError{Err: err}
		}
		return 0, err
	}
	s, _ := cmd.Val().(string)
	return fts.TotalHits(unsafe.Slice(unsafe.StringData(s), len(s))), nil
}

func (c *tairClient) Close() error { return c.c.Close() }

func (e *tairSearch) Target() endpoint.Target { return e.o.Target }

func (e *tairSearch) Sampler() serverstat.Sampler { return redis.NewInfoSampler(e.o.Target) }

// Tokens runs TFT.ANALYZER with the field's analyzer (custom analyzers
// are the index's, hence INDEX).
func (e *tairSearch) Tokens(ctx context.Context, _, analyzer, text string) ([]string, error) {
	out, err := e.admin.Do(ctx, "TFT.ANALYZER", analyzer, text, "INDEX", e.o.Index).Text()
	if err != nil {
		return nil, fmt.Errorf("tairsearch: analyzer: %w", err)
	}
	return fts.ParseTokens([]byte(out))
}

// Engine is TairSearch's descriptor.
var Engine = catalog.Engine{Name: "tairsearch", Product: "TairSearch", Reach: catalog.RESP, Search: New}
