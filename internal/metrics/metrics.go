// Package metrics serves a run's figures live in the Prometheus exposition
// format (--metrics-addr), through prometheus/client_golang: commands,
// requests, errors, lost requests and unreachable time as counters, latency
// (service and from the intended start, per operation) as histograms with
// fine log-spaced buckets and as summaries whose quantiles come straight
// from the run's HdrHistograms, the process's CPU, and the run's labels.
// The figures change once a tick (the engine's per-second progress) and,
// after the run, become exactly the result's.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

// Labels name a run on every series.
type Labels struct {
	RunID, Shard, Workload, Target, Version string
	// Server is who the target said it is ("tairbench embedded server,
	// not Tair", "redis 7.0.15"), on the run_info series.
	Server      string
	Connections int
}

// Run is one run's figures on an exporter (a suite has one per case).
type Run struct {
	e      *Exporter
	labels Labels
	st     state
}

// state is the figures at the last tick (or the run's end).
type state struct {
	ops, requests, errors, lost int64
	unreachableS                float64
	service, corrected          *hdr.Histogram
	opNames                     []string
	opHists, opCorrected        []*hdr.Histogram
	opCounts, opErrors          []int64
	connectFailures             int64
	// causes are the result's error groups; schedule its open-loop
	// schedule (both known at the end of the run).
	causes   []result.ErrorCount
	schedule *result.Schedule
	finished bool
	// headline is the latency the run leads with (result.Totals.Headline).
	headline result.LatencyMeasure
}

// Exporter serves the metrics of every run of one tairbench process.
type Exporter struct {
	labels   Labels
	srv      *http.Server
	ln       net.Listener
	mu       sync.Mutex
	runs     []*Run
	finals   int // Final calls so far
	served   int // the most Finals a completed scrape included
	scraped  chan struct{}
	start    time.Time
	desc     map[string]*prometheus.Desc
	registry *prometheus.Registry
}

// Start listens on addr and serves /metrics.
func Start(addr string, l Labels) (*Exporter, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics endpoint on %s: %w", addr, err)
	}
	e := &Exporter{labels: l, ln: ln, scraped: make(chan struct{}, 1), start: time.Now()}
	e.describe()
	e.registry = prometheus.NewRegistry()
	e.registry.MustRegister(e, collectors.NewProcessCollector(collectors.ProcessCollectorOpts{Namespace: "tairbench"}))
	mux := http.NewServeMux()
	h := promhttp.HandlerFor(e.registry, promhttp.HandlerOpts{})
	mux.Handle("/metrics", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		seen := e.finals // the Finals this scrape's figures include
		e.mu.Unlock()
		h.ServeHTTP(w, r)
		e.mu.Lock()
		e.served = max(e.served, seen)
		e.mu.Unlock()
		select {
		case e.scraped <- struct{}{}:
		default:
		}
	}))
	e.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = e.srv.Serve(ln) }()
	return e, nil
}

// Addr is where the endpoint listens.
func (e *Exporter) Addr() string { return e.ln.Addr().String() }

func (e *Exporter) describe() {
	names := []string{"run_id", "shard", "workload", "target"}
	c := prometheus.Labels{"tool_version": e.labels.Version}
	d := func(name, help string, extra ...string) *prometheus.Desc {
		return prometheus.NewDesc("tairbench_"+name, help, append(append([]string{}, names...), extra...), c)
	}
	e.desc = map[string]*prometheus.Desc{
		"info":        d("run_info", "The run: 1 while its endpoint serves; server is who the target said it is.", "connections", "server"),
		"finished":    d("run_finished", "1 once the run has ended and the figures are the result's."),
		"elapsed":     d("run_elapsed_seconds", "Seconds since the endpoint started."),
		"ops":         d("commands_total", "Commands completed (a batch or pipeline of N counts N)."),
		"requests":    d("requests_total", "Round trips completed."),
		"errors":      d("errors_total", "Failed commands: error replies and the commands of lost requests."),
		"lost":        d("lost_requests_total", "Requests lost on their connection (timeout, reset, closed)."),
		"unreachable": d("unreachable_seconds_total", "Measured time with no usable connection (at the end of the run)."),
		"connect":     d("connect_failures_total", "Failed attempts to connect or reconnect."),
		"causes":      d("error_causes_total", "Failed commands by kind (reply, connection, connect) and message (at the end of the run).", "kind", "cause"),
		"behind":      d("schedule_behind_requests_total", "Open loop: requests that started over 1 ms late because the server held the connection (at the end of the run)."),
		"behindDown":  d("schedule_behind_down_requests_total", "Open loop: of those, the requests that waited for a failed connection to come back, not for a reply (at the end of the run)."),
		"lags":        d("schedule_client_lags_total", "Open loop: requests the client itself started over 1 ms late (at the end of the run)."),
		"behindMax":   d("schedule_behind_max_seconds", "Open loop: the longest a request started after its intended start (at the end of the run)."),
		"sent":        d("schedule_sent_requests_total", "Open loop: requests due in the measured time that were sent (at the end of the run)."),
		"notSent":     d("schedule_not_sent_requests_total", "Open loop: requests due in the measured time never sent, by reason: no_connection or waiting_for_replies (at the end of the run).", "reason"),
		"op_ops":      d("operation_commands_total", "Commands completed, per operation type.", "op"),
		"op_errors":   d("operation_errors_total", "Failed commands, per operation type.", "op"),
		"latency":     d("latency_seconds", "Latency: measure=service from the send, corrected from the intended start (open loop).", "measure", "op"),
		"native":      d("latency_native_seconds", "Latency as a Prometheus native histogram (schema 5, buckets 2.2% apart), for scrapers that ask for it.", "measure", "op"),
		"quantiles":   d("latency_quantile_seconds", "Latency quantiles read from the run's HdrHistogram (3 significant digits).", "measure", "op"),
		"headline":    d("headline_latency_info", "The latency the run leads with in every output: measure=corrected (from the intended start, open loop) or service (from the send, closed loop); label as the outputs name it.", "measure", "label"),
	}
}

// Describe sends every metric's description.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range e.desc {
		ch <- d
	}
}

// Begin adds a run: l's Workload, Target, Shard and Connections name it
// (the run ID and version are the exporter's). A run of the same
// workload, target and shard replaces the earlier one.
func (e *Exporter) Begin(l Labels) *Run {
	l.RunID, l.Version = e.labels.RunID, e.labels.Version
	r := &Run{e: e, labels: l}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, old := range e.runs {
		if old.labels.Workload == l.Workload && old.labels.Target == l.Target && old.labels.Shard == l.Shard {
			e.runs[i] = r
			return r
		}
	}
	e.runs = append(e.runs, r)
	return r
}

// Observe takes one tick's progress (its cumulative histograms need
// engine.Config.ProgressTotals).
func (r *Run) Observe(p stats.Progress) {
	r.e.mu.Lock()
	defer r.e.mu.Unlock()
	if r.st.finished {
		return
	}
	r.st.ops, r.st.errors = p.TotalOps, p.Errors
	r.st.connectFailures += p.Interval.ConnectFailures
	if t := p.Totals; t != nil {
		r.st.requests, r.st.lost = t.Requests, t.Transport
		r.st.service, r.st.corrected = t.Service, t.Corrected
		if t.Corrected != nil {
			r.st.headline = result.FromIntendedStart
		}
		r.st.opNames, r.st.opHists, r.st.opCounts, r.st.opErrors = t.OpNames, t.Ops, t.OpCounts, t.OpErrors
		r.st.opCorrected = t.OpsCorrected
	}
}

// Final makes the run's figures its result, exactly.
func (r *Run) Final(res *result.Run) {
	r.e.final(r, res)
}

func (e *Exporter) final(rm *Run, r *result.Run) {
	st := state{ops: r.Totals.Ops, requests: r.Totals.Requests, errors: r.Totals.Errors, lost: r.Totals.TransportErrors,
		unreachableS: r.Availability.UnreachableMS / 1000, causes: r.Errors, schedule: r.Totals.Schedule, finished: true,
		headline: r.Totals.Measure()}
	for _, e := range r.Errors {
		if e.Kind == "connect" {
			st.connectFailures += e.Count
		}
	}
	st.service = decode(r.Histogram)
	st.corrected = decode(r.HistogramCorrected)
	for _, op := range r.Operations {
		st.opNames = append(st.opNames, op.Name)
		st.opHists = append(st.opHists, decode(op.Histogram))
		st.opCorrected = append(st.opCorrected, decode(op.HistogramCorrected))
		st.opCounts = append(st.opCounts, op.Ops)
		st.opErrors = append(st.opErrors, op.Errors)
	}
	e.mu.Lock()
	rm.st = st
	e.finals++
	e.mu.Unlock()
}

func decode(s string) *hdr.Histogram {
	if s == "" {
		return nil
	}
	h, err := result.DecodeHistogram(s)
	if err != nil {
		return nil
	}
	return h
}

// Close waits until the endpoint has been scraped once after the last
// Final (or linger has passed, or ctx ends), then stops serving. It says
// on log what it waits for.
func (e *Exporter) Close(ctx context.Context, linger time.Duration, log io.Writer) error {
	e.mu.Lock()
	ran := e.finals > 0
	e.mu.Unlock()
	if linger > 0 && ran {
		fmt.Fprintf(log, "metrics: waiting up to %s for a last scrape of http://%s/metrics\n", linger, e.Addr())
		t := time.NewTimer(linger)
		defer t.Stop()
	wait:
		for !e.scrapedSinceFinal() {
			select {
			case <-e.scraped: // a scrape: it may predate the last Final
			case <-t.C:
				fmt.Fprintf(log, "metrics: no scrape after the run within %s (the linger): the scraper holds the figures of its last scrape\n", linger)
				break wait
			case <-ctx.Done():
				break wait
			}
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := e.srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// scrapedSinceFinal says whether a scrape followed the last Final.
func (e *Exporter) scrapedSinceFinal() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.served >= e.finals
}

// bounds are the latency histograms' bucket upper bounds in seconds: ten a
// decade from 10 µs to 100 s, so that a quantile interpolated inside one
// bucket is within 26% of the truth (the quantile series are exact).
var bounds = func() []float64 {
	var b []float64
	for e := -50; e <= 20; e++ {
		b = append(b, math.Pow(10, float64(e)/10))
	}
	return b
}()
