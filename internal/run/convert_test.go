package run

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/pkg/result"
)

// TestEngineTypesConvert: the engine's stop reasons are the result's, and
// its seeds and availability convert field for field.
func TestEngineTypesConvert(t *testing.T) {
	for got, want := range map[engine.StopReason]string{
		engine.StopDuration: result.StopDuration, engine.StopCount: result.StopCount,
		engine.StopExhausted: result.StopExhausted, engine.StopInterrupted: result.StopInterrupted,
		engine.StopMaxErrors: result.StopMaxErrors, engine.StopUnreachable: result.StopUnreachable,
	} {
		assert.Equal(t, want, string(got))
	}
	a := engine.Availability{UnreachableMS: 1, UnreachableFraction: 0.5, ConnectionsLost: 2, Connections: 3, DowntimeMS: 4,
		Reconnects: 5, SilentSeconds: []int{6}, UnresponsiveS: 7}
	assert.Equal(t, result.Availability{UnreachableMS: 1, UnreachableFraction: 0.5, ConnectionsLost: 2, Connections: 3, DowntimeMS: 4,
		Reconnects: 5, SilentSeconds: []int{6}, UnresponsiveS: 7}, result.Availability(a))
	assert.Equal(t, reflect.TypeOf(result.Availability{}).NumField(), reflect.TypeOf(engine.Availability{}).NumField())
	assert.Equal(t, result.Seeds{Base: 1, Workers: []uint64{2}}, result.Seeds(engine.Seeds{Base: 1, Workers: []uint64{2}}))
}
