package result

// SchemaCapacity identifies a CapacitySearch.
const SchemaCapacity = "tairbench.capacity/v1"

// CapacitySearch is the result of --slo: the highest open-loop rate at
// which the target still met a latency and error target.
type CapacitySearch struct {
	Header
	// SLO is the target as given ("p99<2ms,errors<0.1%").
	SLO       string  `json:"slo"`
	WindowS   float64 `json:"window_s"`
	WarmupS   float64 `json:"warmup_s"`
	Precision float64 `json:"precision"`
	// HighestHeld is the highest rate (requests/s) that met the SLO and met
	// it again when confirmed (0 when none did); BrokeAt the lowest that did
	// not (0 when none broke).
	HighestHeld float64 `json:"highest_held"`
	BrokeAt     float64 `json:"broke_at"`
	// ClientBound is set when the client, not the server, was the limit at
	// some step: the answer is then a lower bound.
	ClientBound bool `json:"client_bound"`
	// Steps are the runs in the order they ran, each a full run result.
	Steps []CapacityStep `json:"steps"`
	// Confirm is the second run at HighestHeld, which held, to show the
	// run-to-run noise.
	Confirm *CapacityStep `json:"confirm,omitempty"`
	// Confirmations are every confirming run in order: the answer's, and
	// when it broke, those of the lower rates that held, down to one that
	// held again.
	Confirmations []CapacityStep `json:"confirmations,omitempty"`
	// Unstable is set when the runs contradict each other: a rate held
	// the SLO while a rate no higher broke it (in the search's steps or
	// when run again). There is then no answer (HighestHeld 0);
	// UnstableWhy says which rates, and lists every run.
	Unstable    bool   `json:"unstable,omitempty"`
	UnstableWhy string `json:"unstable_why,omitempty"`
	// Noise is how far the confirming run's measured figure moved, as a
	// fraction of the SLO's bound.
	Noise    float64  `json:"noise"`
	Warnings []string `json:"warnings"`
}

// CapacityStep is one fixed-rate run of a capacity search.
type CapacityStep struct {
	Rate float64 `json:"rate"`
	Held bool    `json:"held"`
	// Why lists what broke the SLO (empty when it held).
	Why []string `json:"why"`
	Run *Run     `json:"run"`
}
