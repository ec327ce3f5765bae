package redis

import (
	"context"
	"time"

	"github.com/tairbench/tairbench/internal/runner"
	"github.com/tairbench/tairbench/internal/target"
)

// InfoSampler reads INFO on a connection of its own, for the server's
// timeline (runner.Sampler). It reconnects after a failure.
type InfoSampler struct {
	t    target.Target
	conn *Conn
}

// NewInfoSampler returns a sampler of t's INFO.
func NewInfoSampler(t target.Target) *InfoSampler {
	t.Timeout = min(max(t.Timeout, 0), time.Second)
	if t.Timeout == 0 {
		t.Timeout = time.Second
	}
	return &InfoSampler{t: t}
}

// Source implements runner.Sampler.
func (s *InfoSampler) Source() string { return "INFO" }

// Expected implements runner.Sampler.
func (s *InfoSampler) Expected() []string {
	return []string{runner.CounterCommands, runner.CounterCPUSeconds, runner.GaugeUsedMemory, runner.GaugeClients}
}

// Read implements runner.Sampler.
func (s *InfoSampler) Read(ctx context.Context) (runner.Reading, error) {
	if s.conn == nil {
		// Not tied to ctx: an interrupted run still takes its final
		// reading, for the reconciliation (the timeout bounds it).
		c, err := Dial(context.WithoutCancel(ctx), s.t)
		if err != nil {
			return runner.Reading{}, err
		}
		s.conn = c
	}
	info, err := s.conn.DoString("INFO", "all")
	if err != nil {
		_ = s.conn.Close()
		s.conn = nil
		return runner.Reading{}, err
	}
	return runner.ParseInfo(time.Now(), info), nil
}

// Close implements runner.Sampler.
func (s *InfoSampler) Close() error {
	if s.conn == nil {
		return nil
	}
	return s.conn.Close()
}
