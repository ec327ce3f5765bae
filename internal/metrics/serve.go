package metrics

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ServerReading is what the embedded server reports of itself.
type ServerReading struct {
	Commands, Rejected, ConnectionsTotal, Clients, PendingBytes float64
	UptimeSeconds                                               float64
}

// serverCollector turns a reading function into metrics.
type serverCollector struct {
	read func() ServerReading
	desc map[string]*prometheus.Desc
}

func newServerCollector(read func() ServerReading) *serverCollector {
	c := prometheus.Labels{"server": "tairbench-embedded"}
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("tairbench_server_"+name, help, nil, c)
	}
	return &serverCollector{read: read, desc: map[string]*prometheus.Desc{
		"commands":    d("commands_total", "Commands the embedded server ran (not Tair)."),
		"rejected":    d("rejected_connections_total", "Connections refused at the server's connection limit."),
		"connections": d("connections_total", "Connections accepted."),
		"clients":     d("connected_clients", "Clients connected now."),
		"pending":     d("pending_request_bytes", "Request bytes pending over all connections (the server's pending limit bounds them)."),
		"uptime":      d("uptime_seconds", "Seconds since the server started."),
	}}
}

// Describe sends the descriptions.
func (s *serverCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range s.desc {
		ch <- d
	}
}

// Collect sends one reading.
func (s *serverCollector) Collect(ch chan<- prometheus.Metric) {
	r := s.read()
	m := func(name string, t prometheus.ValueType, v float64) {
		ch <- prometheus.MustNewConstMetric(s.desc[name], t, v)
	}
	m("commands", prometheus.CounterValue, r.Commands)
	m("rejected", prometheus.CounterValue, r.Rejected)
	m("connections", prometheus.CounterValue, r.ConnectionsTotal)
	m("clients", prometheus.GaugeValue, r.Clients)
	m("pending", prometheus.GaugeValue, r.PendingBytes)
	m("uptime", prometheus.GaugeValue, r.UptimeSeconds)
}

// ServeServer serves the embedded server's metrics (and the process's) on
// addr until ctx ends; it returns the address it listens on.
func ServeServer(ctx context.Context, addr string, read func() ServerReading) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("metrics endpoint on %s: %w", addr, err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(newServerCollector(read), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{Namespace: "tairbench_server"}),
		collectors.NewGoCollector())
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	return ln.Addr().String(), nil
}
