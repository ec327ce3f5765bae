package result

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHeadline: a run leads with the latency its field names; results
// older than the field lead with the corrected latency when they have one.
func TestHeadline(t *testing.T) {
	send := Latency{P50: 100, P99: 200}
	start := Latency{P50: 300, P99: 900}
	for _, tc := range []struct {
		name    string
		t       Totals
		want    Latency
		measure LatencyMeasure
		label   string
	}{
		{"closed loop", Totals{Latency: send, HeadlineLatency: FromSend}, send, FromSend, "latency from the send"},
		{"open loop", Totals{Latency: send, CorrectedLatency: &start, HeadlineLatency: FromIntendedStart}, start, FromIntendedStart,
			"latency from the intended start"},
		{"open loop, no reply", Totals{HeadlineLatency: FromIntendedStart}, Latency{}, FromIntendedStart, "latency from the intended start"},
		{"older closed loop", Totals{Latency: send}, send, FromSend, "latency from the send"},
		{"older open loop", Totals{Latency: send, CorrectedLatency: &start}, start, FromIntendedStart, "latency from the intended start"},
	} {
		l, m := tc.t.Headline()
		assert.Equal(t, tc.want, l, tc.name)
		assert.Equal(t, tc.measure, m, tc.name)
		assert.Equal(t, tc.label, m.Label(), tc.name)
	}
	ptr := func(v float64) *float64 { return &v }
	iv := Interval{P99US: ptr(200), CorrectedP99US: ptr(900)}
	assert.Equal(t, 900.0, *iv.P99Of(FromIntendedStart))
	assert.Equal(t, 200.0, *iv.P99Of(FromSend))
}
