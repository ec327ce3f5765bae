package result

// SchemaEvents identifies the Events part of a Run.
const SchemaEvents = "tairbench.events/v1"

// Events is what happened to the target inside a run (--event): each
// event as it was issued and completed, scored against the run's own
// per-second series, and over repeated cycles the spread of each score.
type Events struct {
	// Schema is SchemaEvents.
	Schema string `json:"schema"`
	// SLO is what a second must meet to count as recovered: the user's
	// (--event-slo) or the default, stated in words.
	SLO string `json:"slo"`
	// RecoverSeconds is how many seconds in a row must meet SLO for the
	// target to count as recovered.
	RecoverSeconds int `json:"recover_seconds"`
	// SlotMS is the resolution of NoReplyMS: the series' interval
	// split in 128 slots.
	SlotMS float64 `json:"slot_ms"`
	// Events are the events in the order they were scheduled.
	Events []Event `json:"events"`
	// Cycles, when an event was repeated (--cycles), is the spread of
	// each score over its cycles, one entry per event text.
	Cycles []EventCycles `json:"cycles,omitempty"`
}

// Event is one event of a run. Times are seconds from the measured
// time's start (second 0 of the series).
type Event struct {
	// Action is the event's kind ("bgsave", "failover", "exec", ...);
	// Text the event as the user wrote it, without its time.
	Action string `json:"action"`
	Text   string `json:"text"`
	// Cycle numbers a repeated event's occurrences from 1 (0: not repeated).
	Cycle int `json:"cycle,omitempty"`
	// AtS is when it was scheduled; IssuedS when it was sent.
	AtS     float64  `json:"at_s"`
	IssuedS *float64 `json:"issued_s"`
	// CompletedS is when the server said it was done (a fork finished,
	// a replica promoted); null when that was not seen in the run.
	CompletedS *float64 `json:"completed_s"`
	// Reply is the server's (or the command's) answer; Error says why the
	// event failed, when it did (the run went on).
	Reply string `json:"reply,omitempty"`
	Error string `json:"error,omitempty"`
	// Signals are the server's own figures about the event
	// (latest_fork_usec, rdb_last_bgsave_status, role).
	Signals map[string]string `json:"signals,omitempty"`
	// Score is how the load went through it.
	Score *EventScore `json:"score,omitempty"`
}

// EventScore is an event's effect on the load, read from the run's series.
type EventScore struct {
	// NoReplyMS is the longest stretch without a reply that was no
	// error, on any connection, that overlaps the event (from its issue to
	// a second after it completed), to a slot (Events.SlotMS).
	NoReplyMS float64 `json:"no_reply_ms"`
	// RecoveredS is the time from the issue to the start of the first
	// RecoverSeconds seconds in a row that met the SLO; null: the run
	// ended before that.
	RecoveredS *float64 `json:"recovered_s"`
	// CutByNextEvent says the next event started before the recovery:
	// this event's window ends there, RecoveredS null.
	CutByNextEvent bool `json:"cut_by_next_event,omitempty"`
	// SecondsOutOfSLO counts the seconds from the issue to the recovery
	// (or the run's end) that did not meet the SLO.
	SecondsOutOfSLO int `json:"seconds_out_of_slo"`
	// Before is the latency of the quiet seconds before the event (the
	// last 5 with no event in them: none from an event's issue to its
	// completion, none in an earlier event's window to its recovery; the
	// first after it when none came before); Inside of the seconds from
	// its issue to its recovery (or the next event, or the run's end).
	// From the intended start in an open loop.
	Before EventWindow `json:"before"`
	Inside EventWindow `json:"inside"`
}

// EventWindow is the latency and errors of a stretch of whole seconds.
type EventWindow struct {
	// FromS and ToS bound it (seconds of the series, ToS excluded);
	// Seconds is how many of them it holds (a Before window skips
	// seconds an event was in).
	FromS   int `json:"from_s"`
	ToS     int `json:"to_s"`
	Seconds int `json:"seconds"`
	// Requests and Errors count its requests and error replies;
	// TransportErrors requests lost on a connection; ConnectFailures
	// connections that could not be made.
	Requests        int64 `json:"requests"`
	Errors          int64 `json:"errors"`
	TransportErrors int64 `json:"transport_errors"`
	ConnectFailures int64 `json:"connect_failures"`
	// ErrorsByClass splits them: an error reply by its first word where it
	// names a topology's state (MOVED, ASK, TRYAGAIN, LOADING, READONLY,
	// CLUSTERDOWN, MASTERDOWN, BUSY, OOM; "reply" for another), a lost
	// request as "timeout" or "connection", a failed connect as "connect".
	// MOVED and ASK the cluster routing followed are not errors: the run's
	// cluster figures count them.
	ErrorsByClass map[string]int64 `json:"errors_by_class,omitempty"`
	// P99US, P999US and MaxUS are its latency (null: no reply in it).
	P99US  *float64 `json:"p99_us"`
	P999US *float64 `json:"p99_9_us"`
	MaxUS  *float64 `json:"max_us"`
}

// EventCycles is one repeated event's scores over its cycles.
type EventCycles struct {
	Text   string `json:"text"`
	Cycles int    `json:"cycles"`
	// Each is the spread of one score (figures with no value in a cycle
	// are left out of it: Count says how many had one).
	NoReplyMS       Spread `json:"no_reply_ms"`
	RecoveredS      Spread `json:"recovered_s"`
	SecondsOutOfSLO Spread `json:"seconds_out_of_slo"`
	InsideP99US     Spread `json:"inside_p99_us"`
}

// Spread is a figure's minimum, median and maximum over Count values.
type Spread struct {
	Count  int     `json:"count"`
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

// SchemaLedger identifies the Ledger part of a Run.
const SchemaLedger = "tairbench.ledger/v1"

// Ledger is a run's write ledger (--verify-writes): each write an INCR of
// a counter of the client's (and a WAIT when WaitReplicas is above 0),
// the counters read back after the run.
type Ledger struct {
	// Schema is SchemaLedger.
	Schema string `json:"schema"`
	// Keys is how many counters were written; WaitReplicas how many
	// replicas a write waited for to be acknowledged (0: the primary's
	// reply acknowledged it).
	Keys         int `json:"keys"`
	WaitReplicas int `json:"wait_replicas"`
	// Sent counts writes sent; Acknowledged those the server acknowledged
	// (INCR's reply, and WAIT's count of replicas); Unacknowledged those
	// with no reply, or too few replicas in time; Refused those refused
	// with an error reply (not applied).
	Sent           int64 `json:"sent"`
	Acknowledged   int64 `json:"acknowledged"`
	Unacknowledged int64 `json:"unacknowledged"`
	Refused        int64 `json:"refused"`
	// LostAcknowledged is the acknowledged writes the counters no longer
	// hold; UnacknowledgedApplied the unacknowledged writes they do hold;
	// AppliedTwice the increments beyond every write sent.
	LostAcknowledged      int64 `json:"lost_acknowledged"`
	UnacknowledgedApplied int64 `json:"unacknowledged_applied"`
	AppliedTwice          int64 `json:"applied_twice"`
	// ReadError says why the counters could not be read back (the other
	// figures then count what was sent only).
	ReadError string `json:"read_error,omitempty"`
}
