package result

import (
	"encoding/json"
	"time"
)

// Run is the result of one benchmark run (schema SchemaRun).
type Run struct {
	Header
	// Name names the run within a suite (a case ID, "tairsearch write").
	Name string `json:"name,omitempty"`
	// Command is the command template, query or input the run sent.
	Command    string       `json:"command,omitempty"`
	Config     RunConfig    `json:"config"`
	Seeds      Seeds        `json:"seeds"`
	DurationMS float64      `json:"duration_ms"`
	WarmupMS   float64      `json:"warmup_ms"`
	StopReason string       `json:"stop_reason"`
	Totals     Totals       `json:"totals"`
	Errors     []ErrorCount `json:"errors"`
	Series     []Interval   `json:"series"`
	Client     Client       `json:"client"`
	// Availability is how much of the run the target was unreachable or silent.
	Availability Availability `json:"availability"`
	// Cluster is what routing a Redis Cluster took (--cluster runs only).
	Cluster *ClusterRouting `json:"cluster,omitempty"`
	// Server is the server's own view, sampled once a second on a connection
	// of its own (absent with --no-server-stats or when the server would not answer).
	Server   *ServerTimeline `json:"server,omitempty"`
	Warnings []string        `json:"warnings"`
	// Preload is the --preload phase that filled the keys before the run.
	Preload *Preload `json:"preload,omitempty"`
	// Thresholds are the pass/fail verdicts of --threshold, when given.
	Thresholds []ThresholdVerdict `json:"thresholds,omitempty"`
	// Histogram is the HdrHistogram of request latencies in microseconds,
	// in the standard compressed base64 encoding (hdrhistogram-go Encode V2).
	Histogram string `json:"histogram_hdr"`
	// HistogramCorrected is the same for latency from the intended start
	// (open-loop runs only).
	HistogramCorrected string `json:"histogram_corrected_hdr,omitempty"`
	// Operations splits a mixed run (several commands drawn by weight) by
	// operation type; absent when the run sent one kind of command.
	Operations []Operation `json:"operations,omitempty"`
	// Sources lists the results a merged run was made of (tairbench merge).
	Sources []Source `json:"sources,omitempty"`
	// Events is what happened to the target inside the run (--event).
	Events *Events `json:"events,omitempty"`
	// Ledger is the run's write ledger (--verify-writes).
	Ledger *Ledger `json:"ledger,omitempty"`
}

// Source is one client's result inside a merged run.
type Source struct {
	StartedAt time.Time `json:"started_at"`
	Host      string    `json:"host,omitempty"`
	Shard     string    `json:"shard,omitempty"`
	SeedBase  uint64    `json:"seed_base"`
	Ops       int64     `json:"ops"`
}

// Operation is one operation type of a mixed run: its share of the counts
// and its own latency distribution. A request (one command, pipeline or
// batch) carries commands of one type.
type Operation struct {
	// Name is the operation's name ("SET", "GET", "READ", …).
	Name string `json:"name"`
	// Command is its command template; Weight its share of the draws.
	Command string `json:"command,omitempty"`
	Weight  int    `json:"weight"`
	// Ops, Requests and Errors count as the run's Totals do; Misses counts
	// replies that found nothing (a null, or an empty array).
	Ops      int64 `json:"ops"`
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
	Misses   int64 `json:"misses"`
	// MissesHidden says the command's replies cannot show a missing key
	// (an integer reads alike for a missing key and an unset bit): Misses
	// is then 0 for want of a way to count, and the server's
	// keyspace_misses is the figure.
	MissesHidden bool    `json:"misses_hidden,omitempty"`
	BytesOut     int64   `json:"bytes_out"`
	BytesIn      int64   `json:"bytes_in"`
	OpsPerSec    float64 `json:"ops_per_sec"`
	Latency      Latency `json:"latency_us"`
	// CorrectedLatency is from the intended start (open-loop runs only).
	CorrectedLatency *Latency `json:"latency_corrected_us,omitempty"`
	// Histogram is the operation's HdrHistogram, encoded as Run.Histogram.
	Histogram string `json:"histogram_hdr"`
	// HistogramCorrected is its latency from the intended start (open-loop
	// runs only), encoded the same way.
	HistogramCorrected string `json:"histogram_corrected_hdr,omitempty"`
}

// IntervalOperation is one operation type's part of one second.
type IntervalOperation struct {
	Name   string   `json:"name"`
	Ops    int64    `json:"ops"`
	Errors int64    `json:"errors"`
	Misses int64    `json:"misses"`
	MeanUS *float64 `json:"mean_us"`
	P50US  *float64 `json:"p50_us"`
	P99US  *float64 `json:"p99_us"`
}

// RunConfig is how a run was configured.
type RunConfig struct {
	// Target is the server measured (absent for engines reached over HTTP
	// only, where Search.URL says where).
	Target *Target `json:"target,omitempty"`
	// Mode says how commands were grouped ("one command per round trip",
	// "pipeline of 16", "MULTI/EXEC batches of 10", …).
	Mode        string  `json:"mode"`
	Connections int     `json:"connections"`
	DurationS   float64 `json:"duration_s"`
	// Count is the command budget (0: none).
	Count     int64   `json:"count"`
	WarmupS   float64 `json:"warmup_s"`
	MaxErrors int64   `json:"max_errors"`
	// Template is set for command-template runs.
	Template *TemplateConfig `json:"template,omitempty"`
	// Search is set for search-engine runs.
	Search *SearchRunConfig `json:"search,omitempty"`
	// Replay is set for a trace's replay (tairbench replay).
	Replay *ReplayConfig `json:"replay,omitempty"`
	// Shard is this client's part of a load from several clients ("1/3").
	Shard string `json:"shard,omitempty"`
	// StartAt is the wall-clock start every client of such a load waited
	// for (--start-at): the shards of one run share it.
	StartAt *time.Time `json:"start_at,omitempty"`
}

// TemplateConfig is a command-template run's template settings.
type TemplateConfig struct {
	// Ranges maps each placeholder the template uses to its range (cmdtmpl.ParseRange syntax).
	Ranges   map[string]string `json:"ranges"`
	DataSize int               `json:"data_size"`
	Batching int               `json:"batching"`
	Pipeline int               `json:"pipeline"`
	// Window is a window pipeline's commands in flight (memtier's --pipeline).
	Window int `json:"window,omitempty"`
}

// ReplayConfig is a replay's trace and settings.
type ReplayConfig struct {
	// Trace is the trace file's name; Source where its commands came
	// from (as the capture recorded it).
	Trace  string `json:"trace"`
	Source string `json:"source,omitempty"`
	// Speed divides the captured gaps between commands.
	Speed float64 `json:"speed"`
	// Commands and Connections are what the replay sends and on how many
	// connections; SpanS the captured span of its commands (seconds).
	Commands    int64   `json:"commands"`
	Connections int     `json:"connections"`
	SpanS       float64 `json:"span_s"`
	KeyPrefix   string  `json:"key_prefix,omitempty"`
	// Only is "reads" or "writes" when the replay was filtered.
	Only string `json:"only,omitempty"`
	// Selects counts the SELECTs added where a captured connection was in
	// another database.
	Selects int64 `json:"selects,omitempty"`
	// Dropped are the trace's commands not sent, each with the reason.
	Dropped []ReplayDrop `json:"dropped,omitempty"`
	// RepliesChecked counts the replies whose kind the capture knew (a
	// packet capture's) and checked; RepliesDiffering those of another
	// kind, by "expected → got".
	RepliesChecked   int64        `json:"replies_checked,omitempty"`
	RepliesDiffering []ReplayDrop `json:"replies_differing,omitempty"`
}

// ReplayDrop is a kind of command a replay did not send.
type ReplayDrop struct {
	What  string `json:"what"`
	Count int64  `json:"count"`
}

// SearchRunConfig is a search-engine run's settings.
type SearchRunConfig struct {
	Engine string `json:"engine"`
	// URL is the engine's address when it is not a RESP target.
	URL string `json:"url,omitempty"`
	// File and Docs describe an ingest run's input (Docs 0: the whole file).
	File string `json:"file,omitempty"`
	Docs int64  `json:"docs,omitempty"`
	Bulk int    `json:"bulk,omitempty"`
	// Queries and Cache describe a query run.
	Queries int64 `json:"queries,omitempty"`
	Cache   bool  `json:"cache"`
}

// Seeds records how the random generators were seeded, so a run can be replayed.
type Seeds struct {
	Base    uint64   `json:"base"`
	Workers []uint64 `json:"workers"`
}

// Totals are the counts and latency over the measured part of the run.
type Totals struct {
	// Ops counts commands (a MULTI/EXEC batch of N counts N).
	Ops int64 `json:"ops"`
	// Requests counts round trips: one command, one pipeline or one MULTI/EXEC batch.
	Requests int64 `json:"requests"`
	// OpsPerRequest is the number of commands in one request.
	OpsPerRequest int `json:"ops_per_request"`
	// Errors counts failed commands: those whose reply was an error, plus
	// the commands of requests lost on their connection (LostOps).
	Errors int64 `json:"errors"`
	// TransportErrors counts requests lost on their connection (timeout,
	// reset, closed); LostOps counts their commands.
	TransportErrors int64 `json:"transport_errors"`
	LostOps         int64 `json:"lost_ops"`
	// ConnectFailures counts failed attempts to connect or reconnect; they
	// are not commands and are not in Errors.
	ConnectFailures int64 `json:"connect_failures"`
	// Retried counts commands sent again (--retry) after their connection
	// failed or the server said it was not the primary: apart from Ops,
	// which counts each command once, by the reply that counted.
	Retried int64 `json:"retried,omitempty"`
	// Misses counts replies that found nothing (a null, or an empty array).
	Misses int64 `json:"misses"`
	// BytesOut and BytesIn are the bytes the measured requests sent and
	// their replies took (0 where the driver cannot count them: --cluster).
	BytesOut int64 `json:"bytes_out"`
	BytesIn  int64 `json:"bytes_in"`
	// Aborted counts MULTI/EXEC batches that were not executed (EXECABORT or a nil EXEC).
	Aborted int64 `json:"aborted"`
	// Overflow counts latencies above the histogram's range (recorded at its top).
	Overflow int64 `json:"latency_overflow"`
	// OpsPerSec is commands per second over the measured time.
	OpsPerSec float64 `json:"ops_per_sec"`
	// RequestsPerSec is round trips per second over the measured time.
	RequestsPerSec float64 `json:"requests_per_sec"`
	// ErrorRate is Errors over the commands attempted (Ops plus LostOps).
	ErrorRate float64 `json:"error_rate"`
	// WarmupOps counts commands sent during the warm-up.
	WarmupOps int64 `json:"warmup_ops"`
	// AfterDeadlineOps counts commands of requests in flight at the deadline:
	// the server ran them, the measurement does not include them.
	AfterDeadlineOps int64 `json:"after_deadline_ops"`
	// LatencyUnit names what one latency sample covers.
	LatencyUnit string `json:"latency_unit"`
	// LatencyPerOp is set when a sample is one command (no pipeline or batch).
	LatencyPerOp bool    `json:"latency_per_op"`
	Latency      Latency `json:"latency_us"`
	// HistogramRangeUS is the histogram's highest trackable value.
	HistogramRangeUS int64 `json:"histogram_max_us"`
	// CorrectedLatency is, for open-loop runs (--rate), the latency from
	// each request's intended start: what a user arriving on schedule
	// waited, corrected for coordinated omission. Latency is then the
	// service time, from the actual send.
	CorrectedLatency *Latency `json:"latency_corrected_us,omitempty"`
	// HeadlineLatency names the latency every surface leads with (Headline):
	// "intended_start" (CorrectedLatency) in an open loop, "send" (Latency)
	// otherwise. Results older than the field leave it out.
	HeadlineLatency LatencyMeasure `json:"headline_latency,omitempty"`
	// Schedule says how well an open-loop run kept its schedule.
	Schedule *Schedule `json:"schedule,omitempty"`
}

// Schedule is how an open-loop run kept its schedule.
type Schedule struct {
	// Rate is the requests per second asked for (a replay's: its mean);
	// Arrivals "constant", "poisson" or "captured" (a replay's times).
	Rate     float64 `json:"rate"`
	Arrivals string  `json:"arrivals"`
	// AchievedRate is the requests per second sent (Sent over the
	// measured time).
	AchievedRate float64 `json:"achieved_rate"`
	// Sent counts the requests due in the measured time that were sent
	// (answered, failed or lost); NotSent those due in it that never
	// were, so that Sent + NotSent is every request it scheduled.
	// NotSentNoConnection is those of NotSent whose connection was down
	// at the end (the target failed); the rest were held back waiting for
	// replies. Each is left out when 0 (and from results older than them).
	Sent                int64 `json:"sent,omitempty"`
	NotSent             int64 `json:"not_sent,omitempty"`
	NotSentNoConnection int64 `json:"not_sent_no_connection,omitempty"`
	// Behind counts requests that started more than 1 ms after their
	// intended time because their worker was waiting for a reply (the
	// server held it up) or for a connection; by how much at most and on
	// average. BehindDown is those of them that waited for a connection:
	// a failure, its back-off and reconnects (the target unreachable).
	Behind       int64   `json:"behind"`
	BehindDown   int64   `json:"behind_down"`
	BehindMaxMS  float64 `json:"behind_max_ms"`
	BehindMeanMS float64 `json:"behind_mean_ms"`
	// ClientLags counts scheduled sends that started more than 1 ms late
	// although their worker had no reply outstanding (it woke late, or was
	// not scheduled): the client itself fell behind.
	ClientLags     int64   `json:"client_lags"`
	ClientLagMaxMS float64 `json:"client_lag_max_ms"`
	// SendGridUS, when above 0, is the grid the requests were sent on:
	// each at the first tick at or after its intended start (so up to
	// this late by design, which the corrected latency counts, while
	// Behind and ClientLags count only lateness past the tick), with the
	// replies read at the next wake and timed by the kernel's arrival
	// time. 0: every request woken at its own intended start.
	SendGridUS float64 `json:"send_grid_us,omitempty"`
}

// LatencyMeasure names what a latency is timed from.
type LatencyMeasure string

const (
	// FromIntendedStart is from each request's intended start: an open
	// loop's latency, what a user arriving on schedule waited.
	FromIntendedStart LatencyMeasure = "intended_start"
	// FromSend is from the request's send: a closed loop's latency, an
	// open loop's service time.
	FromSend LatencyMeasure = "send"
)

// Label is how every surface names the measure.
func (m LatencyMeasure) Label() string {
	if m == FromIntendedStart {
		return "latency from the intended start"
	}
	return "latency from the send"
}

// Measure is the measure the totals lead with: HeadlineLatency, or for
// results older than it, from the intended start when they have a
// corrected latency.
func (t Totals) Measure() LatencyMeasure {
	switch {
	case t.HeadlineLatency != "":
		return t.HeadlineLatency
	case t.CorrectedLatency != nil:
		return FromIntendedStart
	}
	return FromSend
}

// Headline is the latency every surface (terminal, JSON, HTML, compare,
// gates, metrics, merge) leads with, and what it is timed from: from the
// intended start in an open loop, from the send otherwise. An open loop
// with no reply has an empty one.
func (t Totals) Headline() (Latency, LatencyMeasure) {
	m := t.Measure()
	return t.Of(m), m
}

// Of is the totals' latency timed as m (empty when the run has none).
func (t Totals) Of(m LatencyMeasure) Latency { return timedAs(m, t.Latency, t.CorrectedLatency) }

// Of is the operation's latency timed as m (empty when it has none).
func (o Operation) Of(m LatencyMeasure) Latency { return timedAs(m, o.Latency, o.CorrectedLatency) }

// timedAs is fromSend or fromStart, as m says (empty for a nil fromStart).
func timedAs(m LatencyMeasure, fromSend Latency, fromStart *Latency) Latency {
	if m != FromIntendedStart {
		return fromSend
	}
	if fromStart == nil {
		return Latency{}
	}
	return *fromStart
}

// P50Of and P99Of are the second's percentiles timed as m (nil when no
// reply came in it).
func (iv Interval) P50Of(m LatencyMeasure) *float64 {
	if m == FromIntendedStart {
		return iv.CorrectedP50US
	}
	return iv.P50US
}

// P99Of is the second's p99 timed as m (nil when no reply came in it).
func (iv Interval) P99Of(m LatencyMeasure) *float64 {
	if m == FromIntendedStart {
		return iv.CorrectedP99US
	}
	return iv.P99US
}

// Latency is a latency summary in microseconds; with no reply at all it
// is all zero, and its JSON is null in every field.
type Latency struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99_9"`
	Max  float64 `json:"max"`
}

// Empty says whether no latency was recorded (no request got a reply).
func (l Latency) Empty() bool { return l == Latency{} }

// MarshalJSON writes null for every field of an empty summary: no reply
// has no latency, which is not a latency of 0.
func (l Latency) MarshalJSON() ([]byte, error) {
	if l.Empty() {
		return []byte(`{"min":null,"mean":null,"p50":null,"p90":null,"p99":null,"p99_9":null,"max":null}`), nil
	}
	type plain Latency
	return json.Marshal(plain(l))
}

// ErrorCount is one group of errors of the same cause.
type ErrorCount struct {
	// Kind is "reply" (the server answered with an error), "connection" (a
	// request was lost on its connection) or "connect" (a connection could
	// not be established).
	Kind string `json:"kind"`
	// Message is the normalized message: the parts a server quotes from the
	// request (arguments, numbers) are replaced, so that one cause is one group.
	Message string `json:"message"`
	// Example is the first message of the group, verbatim.
	Example string `json:"example"`
	// Count is the number of failed commands (of connect attempts for "connect").
	Count int64 `json:"count"`
}

// Interval is one second (or tick) of the run. Every interval of the
// measured time has one, empty ones included; the latency fields are null
// when no request completed in it.
type Interval struct {
	Second          int   `json:"second"`
	Ops             int64 `json:"ops"`
	Requests        int64 `json:"requests"`
	Errors          int64 `json:"errors"`
	TransportErrors int64 `json:"transport_errors"`
	ConnectFailures int64 `json:"connect_failures"`
	// OpsPerSec is Ops over the interval's measured time: SpanS when the
	// run ended inside it, the whole interval otherwise.
	OpsPerSec float64 `json:"ops_per_sec"`
	// SpanS is the measured time of the interval the run ended inside, in
	// seconds (absent for a whole interval).
	SpanS  float64  `json:"span_s,omitempty"`
	MeanUS *float64 `json:"mean_us"`
	P50US  *float64 `json:"p50_us"`
	P99US  *float64 `json:"p99_us"`
	MaxUS  *float64 `json:"max_us"`
	// Behind counts, in an open loop, the second's requests that started
	// behind their intended start (the run's totals: Schedule.Behind).
	Behind int64 `json:"behind,omitempty"`
	// The corrected latency (open-loop runs only).
	CorrectedP50US *float64 `json:"corrected_p50_us,omitempty"`
	CorrectedP99US *float64 `json:"corrected_p99_us,omitempty"`
	CorrectedMaxUS *float64 `json:"corrected_max_us,omitempty"`
	// Operations splits the second by operation type (mixed runs only).
	Operations []IntervalOperation `json:"operations,omitempty"`
	// Events are the run's events issued or completed in this second
	// (--event), with their times: "bgsave issued at 20.001 s".
	Events []string `json:"events,omitempty"`
}

// EndInside makes iv the interval the run ended inside when its measured
// part, span, is shorter than the whole interval: SpanS is span, and
// OpsPerSec the rate over it. Otherwise iv stays a whole interval.
func (iv *Interval) EndInside(span, whole time.Duration) {
	if span <= 0 || span >= whole {
		return
	}
	iv.SpanS = span.Seconds()
	iv.OpsPerSec = float64(iv.Ops) / iv.SpanS
}

// Availability is how much of the run the target could not be reached or
// did not answer.
type Availability struct {
	// UnreachableMS is the measured time during which no connection was usable.
	UnreachableMS float64 `json:"unreachable_ms"`
	// UnreachableFraction is UnreachableMS over the measured time.
	UnreachableFraction float64 `json:"unreachable_fraction"`
	// ConnectionsLost is how many of the Connections lost their connection at least once.
	ConnectionsLost int `json:"connections_lost"`
	Connections     int `json:"connections"`
	// DowntimeMS adds up every connection's time without a usable connection.
	DowntimeMS float64 `json:"downtime_ms"`
	// Reconnects counts connections re-established after a loss.
	Reconnects int64 `json:"reconnects"`
	// SilentSeconds lists the whole seconds of the measured time in which no
	// request got a reply, numbered as Series' seconds (second N runs from
	// N s to N+1 s).
	SilentSeconds []int `json:"silent_seconds"`
	// UnresponsiveS is the time of the stretches of silent seconds, each
	// from the last reply before it to the first after it (to the
	// millisecond), not explained by unreachability: connections were up
	// and the server did not answer (a stall, a pause, a black hole).
	UnresponsiveS float64 `json:"unresponsive_s"`
}

// ClusterRouting counts what the slot-aware client followed during a run
// against a Redis Cluster.
type ClusterRouting struct {
	// Nodes is how many primaries served slots at the end of the run.
	Nodes int `json:"nodes"`
	// MapLoads counts slot map reads (CLUSTER SLOTS or SHARDS): one at the
	// start, more when a node could not be reached.
	MapLoads int64 `json:"map_loads"`
	// Moved and Asked count MOVED and ASK replies followed; TryAgain counts
	// transactions sent again after TRYAGAIN (a slot mid-migration).
	Moved    int64 `json:"moved"`
	Asked    int64 `json:"asked"`
	TryAgain int64 `json:"try_again"`
}

// Client describes the load generator's own resource use.
type Client struct {
	CPUUserMS  float64 `json:"cpu_user_ms"`
	CPUSysMS   float64 `json:"cpu_sys_ms"`
	CPUPerOpUS float64 `json:"cpu_per_op_us"`
	// CPUUtil is the process's CPU time over wall time, in cores.
	CPUUtil float64 `json:"cpu_util"`
	Cores   int     `json:"cores"`
	// Saturated is set when the process used 90% or more of the cores.
	Saturated bool `json:"saturated"`
	// InProcessServer is set when this process also ran the server.
	InProcessServer bool `json:"in_process_server"`
	// Host is the client machine's host name.
	Host string `json:"host,omitempty"`
}

// ServerTimeline is the server's own view of a run, one sample a second.
type ServerTimeline struct {
	// Source names what was read: "INFO" (Redis, Tair) or "_nodes/stats" (Elasticsearch).
	Source string `json:"source"`
	// Samples has one entry per second of the measured time; a figure the
	// server did not give, or a second it did not answer, is null.
	Samples []ServerSample `json:"samples"`
	// Missing names the figures the server does not give (a cloud proxy may
	// hide INFO sections): they are null, never 0.
	Missing []string `json:"missing"`
	// Unanswered counts the readings the server did not answer in time.
	Unanswered int `json:"unanswered"`
	// Restarts are the seconds (from the measured start) of the first
	// reading of each new life of the server: a restart between readings,
	// across which no rate is taken.
	Restarts []float64 `json:"restarts,omitempty"`
	// KeyspaceMisses is the reads the server found no key for between the
	// first and the last reading (INFO keyspace_misses; nil when not
	// given): the misses of commands whose replies cannot show them.
	KeyspaceMisses *int64 `json:"keyspace_misses,omitempty"`
	// Reconciliation compares the server's count of the run's commands with
	// the client's (absent when the server gives no command statistics:
	// Missing then names "commandstats").
	Reconciliation *Reconciliation `json:"reconciliation,omitempty"`
}

// ServerSample is one second as the server saw it.
type ServerSample struct {
	Second int       `json:"second"`
	At     time.Time `json:"at"`
	// OpsPerSec is the commands the server processed per second (all clients).
	OpsPerSec *float64 `json:"ops_per_sec"`
	// CPUCores is the server's CPU time (user and system) per second.
	CPUCores         *float64 `json:"cpu_cores"`
	UsedMemory       *int64   `json:"used_memory"`
	ConnectedClients *int64   `json:"connected_clients"`
	// HeapUsed, IndexingPerSec and QueriesPerSec are Elasticsearch's.
	HeapUsed       *int64   `json:"heap_used,omitempty"`
	IndexingPerSec *float64 `json:"indexing_per_sec,omitempty"`
	QueriesPerSec  *float64 `json:"queries_per_sec,omitempty"`
}

// Reconciliation compares the commands the server answered during the run
// (its command statistics: calls plus rejected calls, over every life of
// the server it saw) with those the client counted: its commands, warm-up
// included, plus those completed after the deadline.
type Reconciliation struct {
	Commands []string `json:"commands"`
	Server   int64    `json:"server"`
	Client   int64    `json:"client"`
	// Match is true when the server's count is complete and equal to the
	// client's.
	Match bool   `json:"match"`
	Note  string `json:"note,omitempty"`
	// Rejected are the server's rejected_calls (refused before running:
	// wrong arity, LOADING, OOM) and Failed its failed_calls (ran and
	// replied an error), both in Server; the client counts them as errors.
	Rejected int64 `json:"rejected"`
	Failed   int64 `json:"failed"`
	// Explained is true when the counts differ only by commands lost on
	// their connection that the server ran: complete, and the server's
	// count lies above the client's by at most the lost commands.
	Explained bool `json:"explained"`
	// Complete is false when a life of the server ended (a restart, or it
	// stopped answering) after its last reading: the commands it ran after
	// that reading are unknown, and Server is a lower bound.
	Complete bool `json:"complete"`
	// Lives has one entry per server process seen (run_id), in order.
	Lives []ServerLife `json:"lives"`
	// Causes names what was observed that explains a difference (a
	// restart, rejected calls, other clients, lost requests, an
	// interrupt); empty when the counts match.
	Causes []string `json:"causes,omitempty"`
}

// ServerLife is one server process's share of a reconciliation.
type ServerLife struct {
	// RunID is the server's run_id (empty when it gives none).
	RunID string `json:"run_id,omitempty"`
	// FirstS and LastS are the readings' times in seconds from the
	// measured start (negative for readings before it).
	FirstS float64 `json:"first_s"`
	LastS  float64 `json:"last_s"`
	// Calls, Rejected and Failed are the life's counts of the commands
	// between its first reading (0 for a life that began during the run)
	// and its last.
	Calls    int64 `json:"calls"`
	Rejected int64 `json:"rejected"`
	Failed   int64 `json:"failed"`
	// EndRead is false when the life ended after its last reading.
	EndRead bool `json:"end_read"`
}

// ThresholdVerdict is one --threshold's verdict on a run.
type ThresholdVerdict struct {
	// Threshold is the condition as given ("p99<2ms", "GET:errors<0.1%").
	Threshold string `json:"threshold"`
	// Observed is the run's figure in Unit ("ms", "%", "/s").
	Observed float64 `json:"observed"`
	Unit     string  `json:"unit"`
	Pass     bool    `json:"pass"`
	// Note says what was read (latency from the intended start) or why
	// nothing could be (no such operation).
	Note string `json:"note,omitempty"`
}

// Preload is how --preload filled the keys the run reads, timed apart from it.
type Preload struct {
	// Templates are the write commands, one per read template.
	Templates []string `json:"templates"`
	Keys      int64    `json:"keys"`
	Commands  int64    `json:"commands"`
	Errors    int64    `json:"errors"`
	Seconds   float64  `json:"seconds"`
}
