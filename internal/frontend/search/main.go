package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/tairbench/tairbench/internal/driver/catalog"
	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/driver/tairsearch"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/engines"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/frontend/target"
)

// Reach is how the engines are reached and set up, as the user gave it:
// TairSearch's login and TLS (Server; its address comes with each
// command, --embedded and --timeout with common.Options), the index,
// Elasticsearch's refresh and the connections.
type Reach struct {
	Server      target.Options
	Index       string
	Refresh     string
	Realtime    bool
	Connections int
}

// tairTarget resolves TairSearch's target at addr, or the embedded server.
func (r Reach) tairTarget(io harness.IO, addr string) (endpoint.Target, func(), error) {
	s := r.Server
	if addr != "" {
		s.Host = addr
	}
	if !s.Embedded && addr == "" {
		return endpoint.Target{}, func() {}, errors.New("TairSearch's address is required, or --embedded")
	}
	return target.Resolve(io, s)
}

// engine is the engine settings with t as the target.
func (r Reach) engine(t endpoint.Target) fts.Options {
	return fts.Options{Target: t, Index: r.Index, RefreshInterval: r.Refresh, Realtime: r.Realtime, Connections: r.Connections}
}

// Words are 'tairbench search' as the user gave it (TairSearchBench's
// flags): tairbench's own options (common.Options), Bench without the
// engine, seed and server statistics, which Reach, Addr and the own
// options give, and the query as -q wrote it (inline, or @FILE).
type Words struct {
	common.Options
	Reach
	Bench Options
	// Addr is -a: host:port for TairSearch, a URL for Elasticsearch.
	Addr  string
	Query string
	// Quiet turns the progress lines off; Gate holds the thresholds.
	Quiet bool
	Gate  output.Gate
}

// Main reads the query, resolves the engine's target (starting the
// embedded server with --embedded) and runs the write or the queries.
func Main(ctx context.Context, w Words, io harness.IO) error {
	so := w.Bench
	so.Seed, so.NoServerStats = w.Seed, w.NoServerStats
	w.Server = w.Target(w.Server)
	var err error
	if so.Query, err = oneQuery(w.Query); err != nil {
		return err
	}
	so.Connections = w.Connections
	so.Out = output.Outputs{JSON: w.JSON, Quiet: w.Quiet, JUnit: w.Gate.JUnit}
	if so.Out.Thresholds, err = w.Gate.Parse(); err != nil {
		return err
	}
	if err := so.Validate(); err != nil {
		return err
	}
	if _, err := engines.Search(so.Engine); err != nil {
		return fmt.Errorf("-e: %w", err)
	}
	if w.DryRun {
		so.Index = w.Index
		dry := target.Dry(w.Addr, w.Server.Embedded)
		if e, err := engines.Search(so.Engine); err == nil && e.Reach == catalog.HTTP && w.Addr == "" {
			dry = e.Product + " at -a (required)"
		}
		return DryRun(so, dry, io)
	}
	var tg endpoint.Target
	stop := func() {}
	if w.Server.Embedded || !engines.AtURL(so.Engine) {
		if tg, stop, err = w.tairTarget(io, w.Addr); err != nil {
			return err
		}
		if w.Server.Embedded {
			so.Engine = tairsearch.Engine.Name // the embedded server serves TairSearch
		}
	} else {
		if w.Addr == "" {
			return errors.New("-a (the engine's address) is required")
		}
		tg = endpoint.Target{Addr: w.Addr, Auth: w.Server.Auth, Timeout: w.Server.Timeout}
	}
	defer stop()
	so.Options = w.engine(tg)
	sinks := w.Sinks
	sinks.Progress = !so.Out.Quiet
	return sinks.Run(ctx, io, func(ctx context.Context) error {
		_, err := Run(ctx, so, io)
		return err
	})
}

// CompareWords are 'tairbench search compare' as the user gave it:
// tairbench's own options (common.Options) and Compare without its
// result file, seed and server statistics, which they give.
type CompareWords struct {
	common.Options
	Reach
	Compare RunCompareOptions
	// TairAddr is --tair, TairSearch's host:port.
	TairAddr string
}

// CompareMain resolves TairSearch's target and runs the whitepaper's
// comparison on both engines.
func CompareMain(ctx context.Context, w CompareWords, io harness.IO) error {
	co := w.Compare
	co.JSON, co.Seed, co.NoServerStats = w.JSON, w.Seed, w.NoServerStats
	w.Server = w.Target(w.Server)
	co.Engine = w.engine(endpoint.Target{})
	if co.File == "" || co.ES == "" {
		_, err := RunCompare(ctx, co, io) // refuses, naming the flag
		return err
	}
	if _, err := os.Stat(co.File); err != nil {
		return err
	}
	if _, err := co.relevanceBars(); err != nil {
		return err
	}
	if !w.Embedded && w.TairAddr == "" {
		return errors.New("TairSearch's address is required, or --embedded (--tair ADDR)")
	}
	if w.DryRun {
		return CompareDryRun(co, target.Dry(w.TairAddr, w.Embedded), io)
	}
	tg, stop, err := w.tairTarget(io, w.TairAddr)
	if err != nil {
		return fmt.Errorf("%w (--tair ADDR)", err)
	}
	defer stop()
	co.Tair = tg
	return w.Sinks.Run(ctx, io, func(ctx context.Context) error {
		_, err := RunCompare(ctx, co, io)
		return err
	})
}

// oneQuery reads -q: one JSON query, given inline or as @FILE (a weighted
// mix of queries is a track; -q given twice is refused as every
// single-value flag is).
func oneQuery(q string) (string, error) {
	path, ok := strings.CutPrefix(q, "@")
	if !ok {
		return q, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("-q @%s: %w", path, err)
	}
	q = strings.TrimSpace(string(b))
	if !json.Valid([]byte(q)) {
		return "", fmt.Errorf("-q @%s: the file is not one JSON query", path)
	}
	return q, nil
}
