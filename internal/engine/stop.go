package engine

// StopReason is why a run ended; the run layer records it in the result.
type StopReason string

// Why a run ends.
const (
	// StopDuration: the measured time ran out.
	StopDuration StopReason = "duration"
	// StopCount: the command budget (Ops, OpsPerWorker) was spent.
	StopCount StopReason = "count"
	// StopExhausted: a worker's input ran out (engine.ErrExhausted).
	StopExhausted StopReason = "input-exhausted"
	// StopInterrupted: the context was cancelled.
	StopInterrupted StopReason = "interrupted"
	// StopMaxErrors: the error budget (MaxErrors) was spent.
	StopMaxErrors StopReason = "max-errors"
	// StopUnreachable: no connection was usable for GiveUp.
	StopUnreachable StopReason = "unreachable"
)

// Seeds are the run's base seed and each worker's.
type Seeds struct {
	Base    uint64
	Workers []uint64
}

// Availability is how much of the measured time the server could be
// reached and answered (the run layer records it in the result).
type Availability struct {
	// UnreachableMS is the measured time during which no connection was usable.
	UnreachableMS float64
	// UnreachableFraction is UnreachableMS over the measured time.
	UnreachableFraction float64
	// ConnectionsLost is how many of the Connections lost their connection at least once.
	ConnectionsLost int
	Connections     int
	// DowntimeMS adds up every connection's time without a usable connection.
	DowntimeMS float64
	// Reconnects counts connections re-established after a loss.
	Reconnects int64
	// SilentSeconds lists the whole seconds of the measured time in which no
	// request got a reply.
	SilentSeconds []int
	// UnresponsiveS is the time of the stretches of silent seconds, from
	// the last reply before each to the first after it (to the
	// millisecond), not explained by unreachability.
	UnresponsiveS float64
}
