package testenv

import (
	"context"
	"fmt"
	"strings"
	"testing"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	// The toxics (latency, bandwidth, reset_peer, timeout) register
	// themselves with the proxy when imported.
	_ "github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// Toxi is a Toxiproxy proxy (Shopify's, run in the test's process) between
// the client and a real server: network faults between real processes,
// where this kernel has no netem.
type Toxi struct {
	// Addr is the proxy's listen address, for the client.
	Addr string
	p    *toxiproxy.Proxy
	n    int
}

// StartToxiproxy starts a proxy to upstream (host:port) on a free loopback
// port and stops it when the test ends.
func StartToxiproxy(t testing.TB, upstream string) *Toxi {
	t.Helper()
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	p := toxiproxy.NewProxy(srv, "tairbench-test", "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		t.Fatalf("toxiproxy to %s: %v", upstream, err)
	}
	t.Cleanup(p.Stop)
	return &Toxi{Addr: p.Listen, p: p}
}

// Add adds a toxic on the downstream (server → client) side: kind is
// latency, bandwidth, reset_peer, timeout or slow_close, attrs its
// attributes as JSON members ("latency":20,"jitter":10). It returns the
// toxic's name, for Remove.
func (x *Toxi) Add(t testing.TB, kind, attrs string) string {
	t.Helper()
	x.n++
	name := fmt.Sprintf("%s_%d", kind, x.n)
	body := fmt.Sprintf(`{"name":%q,"type":%q,"stream":"downstream","toxicity":1,"attributes":{%s}}`, name, kind, attrs)
	if _, err := x.p.Toxics.AddToxicJson(strings.NewReader(body)); err != nil {
		t.Fatalf("toxic %s: %v", body, err)
	}
	return name
}

// Remove takes a toxic away.
func (x *Toxi) Remove(t testing.TB, name string) {
	t.Helper()
	if err := x.p.Toxics.RemoveToxic(context.Background(), name); err != nil {
		t.Errorf("remove toxic %s: %v", name, err)
	}
}
