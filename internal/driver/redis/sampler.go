package redis

import (
	"context"
	"time"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/run"
)

// InfoSampler reads INFO on a connection of its own, for the server's
// timeline (run.Sampler). It reconnects after a failure.
type InfoSampler struct {
	t    endpoint.Target
	conn *Conn
}

// NewInfoSampler returns a sampler of t's INFO.
func NewInfoSampler(t endpoint.Target) *InfoSampler {
	t.Timeout = min(max(t.Timeout, 0), time.Second)
	if t.Timeout == 0 {
		t.Timeout = time.Second
	}
	return &InfoSampler{t: t}
}

// Source implements run.Sampler.
func (s *InfoSampler) Source() string { return "INFO" }

// Expected implements run.Sampler.
func (s *InfoSampler) Expected() []string {
	return []string{run.CounterCommands, run.CounterCPUSeconds, run.GaugeUsedMemory, run.GaugeClients}
}

// Read implements run.Sampler.
func (s *InfoSampler) Read(ctx context.Context) (run.Reading, error) {
	if s.conn == nil {
		// Not tied to ctx: an interrupted run still takes its final
		// reading, for the reconciliation (the timeout bounds it).
		c, err := Dial(context.WithoutCancel(ctx), s.t)
		if err != nil {
			return run.Reading{}, err
		}
		s.conn = c
	}
	info, err := s.conn.DoString("INFO", "all")
	if err != nil {
		_ = s.conn.Close()
		s.conn = nil
		return run.Reading{}, err
	}
	return run.ParseInfo(time.Now(), info), nil
}

// Close implements run.Sampler.
func (s *InfoSampler) Close() error {
	if s.conn == nil {
		return nil
	}
	return s.conn.Close()
}
