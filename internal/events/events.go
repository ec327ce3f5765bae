// Package events is what happens to the target inside a run: the events'
// grammar ("at=20s bgsave") and scenario file, the timeline a run
// follows (repeated in cycles), the runner that issues each event at its
// time through an Actor, and each event's score read from the run's own
// per-second series. It knows no protocol: a driver's Actor carries the
// events out.
package events

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"go.yaml.in/yaml/v3"
)

// Event is one event of a run's timeline.
type Event struct {
	// At is when it is issued, from the measured time's start.
	At time.Duration
	// Action is its kind (one of Actions' names); Args its arguments.
	Action string
	Args   []string
	// Text is the event as written, without its time.
	Text string
	// Cycle numbers a repeated event's occurrences from 1 (0: once).
	Cycle int
}

// Action is one kind of event: the words that name it and its arguments.
type Action struct {
	// Name is the action's name; Words how it is written.
	Name, Words string
	// Args is how many arguments it takes at least and at most.
	MinArgs, MaxArgs int
	// Process says it acts on the target's server process (a signal), not
	// through the protocol.
	Process bool
	// Help says what it does.
	Help string
}

// Actions is every event a run can go through.
var Actions = []Action{
	{Name: "bgsave", Words: "bgsave", Help: "BGSAVE: a fork writes a snapshot; done when the server says the save ended"},
	{Name: "bgrewriteaof", Words: "bgrewriteaof", Help: "BGREWRITEAOF: a fork rewrites the AOF; done when the rewrite ended"},
	{Name: "config-set", Words: "config set", MinArgs: 2, MaxArgs: 2, Help: "CONFIG SET PARAMETER VALUE"},
	{Name: "client-pause", Words: "client pause", MinArgs: 1, MaxArgs: 2, Help: "CLIENT PAUSE MS [WRITE|ALL]: done when the pause ends"},
	{Name: "debug-sleep", Words: "debug sleep", MinArgs: 1, MaxArgs: 1, Help: "DEBUG SLEEP SECONDS: the server stops for that long"},
	{Name: "failover", Words: "failover", Help: "the primary hands over to its replica (FAILOVER); done when the old primary follows the new one"},
	{Name: "stop", Words: "stop", Process: true, Help: "SIGSTOP the target's server process (it must run on this machine)"},
	{Name: "cont", Words: "cont", Process: true, Help: "SIGCONT the target's server process"},
	{Name: "kill", Words: "kill", Process: true, Help: "SIGKILL the target's server process (kill -9)"},
	{Name: "restart", Words: "restart", Process: true, Help: "SIGKILL the target's server process and start it again with its settings; done when it answers PING"},
	{Name: "reshard", Words: "reshard", MinArgs: 6, MaxArgs: 6, Help: "reshard N slots from A to B (cluster nodes by address or ID): each slot migrated as redis-cli --cluster does it; done when the last is B's"},
	{Name: "add-node", Words: "add-node", MinArgs: 1, MaxArgs: 1, Help: "add-node HOST:PORT: an empty cluster-enabled server joins the target's cluster (CLUSTER MEET); done when the cluster sees it connected"},
	{Name: "exec", Words: "exec", MinArgs: 1, MaxArgs: 1, Help: "run a shell command ('...'); done when it exits"},
}

// errReshard says how a reshard is written.
var errReshard = errors.New("reshard is written reshard N slots from A to B (N from 1 to 16384; A and B nodes by address or ID)")

// Parse reads one event: "at=20s bgsave", "at=5s config set appendfsync
// always", "at=10s exec 'redis-cli -p 7001 cluster failover'".
func Parse(s string) (Event, error) {
	words, err := split(s)
	if err != nil {
		return Event{}, fmt.Errorf("event %q: %w", s, err)
	}
	if len(words) == 0 || !strings.HasPrefix(words[0], "at=") {
		return Event{}, fmt.Errorf("event %q: it starts with its time, as in at=20s bgsave", s)
	}
	at, err := parseAt(strings.TrimPrefix(words[0], "at="))
	if err != nil {
		return Event{}, fmt.Errorf("event %q: %w", s, err)
	}
	e, err := action(words[1:])
	if err != nil {
		return Event{}, fmt.Errorf("event %q: %w", s, err)
	}
	e.At = at
	return e, nil
}

// parseAt reads an event's time: a duration ("20s", "1m30s") or seconds.
func parseAt(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		f, ferr := strconv.ParseFloat(v, 64)
		if ferr != nil {
			return 0, fmt.Errorf("time %q: want a duration such as 20s", v)
		}
		d = time.Duration(f * float64(time.Second))
	}
	if d < 0 {
		return 0, fmt.Errorf("time %q is before the run", v)
	}
	return d, nil
}

// action finds the action words name and checks its arguments.
func action(words []string) (Event, error) {
	if len(words) == 0 {
		return Event{}, errors.New("no action after its time")
	}
	for _, a := range Actions {
		w := strings.Fields(a.Words)
		if len(words) < len(w) || !slices.EqualFunc(w, words[:len(w)], strings.EqualFold) {
			continue
		}
		args := words[len(w):]
		if len(args) < a.MinArgs || len(args) > a.MaxArgs {
			if a.Name == "reshard" {
				return Event{}, errReshard
			}
			return Event{}, fmt.Errorf("%s takes %s", a.Words, argsWanted(a))
		}
		if err := checkArgs(a.Name, args); err != nil {
			return Event{}, err
		}
		return Event{Action: a.Name, Args: args, Text: text(a.Words, args)}, nil
	}
	names := make([]string, len(Actions))
	for i, a := range Actions {
		names[i] = a.Words
	}
	return Event{}, fmt.Errorf("unknown action %q (%s)", strings.Join(words, " "), strings.Join(names, ", "))
}

// text writes an event back without its time, quoting an argument with spaces.
func text(words string, args []string) string {
	parts := []string{words}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

func argsWanted(a Action) string {
	switch {
	case a.MaxArgs == 0:
		return "no argument"
	case a.MinArgs == a.MaxArgs:
		return fmt.Sprintf("%d argument(s)", a.MinArgs)
	default:
		return fmt.Sprintf("%d to %d arguments", a.MinArgs, a.MaxArgs)
	}
}

// checkArgs refuses arguments an action cannot use.
func checkArgs(name string, args []string) error {
	switch name {
	case "client-pause":
		if ms, err := strconv.ParseInt(args[0], 10, 64); err != nil || ms <= 0 {
			return fmt.Errorf("client pause takes milliseconds above 0, not %q", args[0])
		}
		if len(args) == 2 && !strings.EqualFold(args[1], "write") && !strings.EqualFold(args[1], "all") {
			return fmt.Errorf("client pause's mode is WRITE or ALL, not %q", args[1])
		}
	case "debug-sleep":
		if s, err := strconv.ParseFloat(args[0], 64); err != nil || s < 0 {
			return fmt.Errorf("debug sleep takes seconds, not %q", args[0])
		}
	case "exec":
		if strings.TrimSpace(args[0]) == "" {
			return errors.New("exec takes a command to run")
		}
	case "reshard":
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 1 || n > 16384 || !strings.EqualFold(args[1], "slots") || !strings.EqualFold(args[2], "from") || !strings.EqualFold(args[4], "to") {
			return errReshard
		}
	}
	return nil
}

// split cuts an event into words, single or double quotes keeping a word
// whole (a shell's quoting, without its expansions).
func split(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, quote, has := false, byte(0), false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in, has = c, true, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in, has = false, false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, errors.New("a quote is not closed")
	}
	if in || has {
		words = append(words, cur.String())
	}
	return words, nil
}

// Plan is a run's events, repeated in cycles.
type Plan struct {
	// Events are the events as given (each once).
	Events []Event
	// Cycles repeats the events this many times (0 or 1: once), Every
	// apart.
	Cycles int
	Every  time.Duration
	// SLO, when set, judges each second for the recovery: it gets the
	// second's latency (µs; from the intended start in an open loop) and
	// error rate and says whether the second met the target. SLOText
	// says it in words. Unset: a second recovered when its p99 is within
	// twice the p99 of the seconds before the event and it had no error.
	SLO     func(latency *hdr.Histogram, errorRate float64) bool
	SLOText string
	// RecoverSeconds is how many seconds in a row must meet the SLO
	// (0: 3).
	RecoverSeconds int
}

// Empty says whether the plan has no event.
func (p *Plan) Empty() bool { return p == nil || len(p.Events) == 0 }

// Timeline is every event the plan issues, by time: each event once a
// cycle, Every apart, numbered when repeated.
func (p *Plan) Timeline() []Event {
	if p.Empty() {
		return nil
	}
	cycles := max(p.Cycles, 1)
	var out []Event
	for c := 0; c < cycles; c++ {
		for _, e := range p.Events {
			e.At += time.Duration(c) * p.Every
			e.Args = slices.Clone(e.Args)
			if cycles > 1 {
				e.Cycle = c + 1
			}
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b Event) int { return int(a.At - b.At) })
	return out
}

// Check refuses a plan that cannot run in a run of duration d (0: no
// duration, as a run of a count): an event past its end, cycles without
// a period.
func (p *Plan) Check(d time.Duration) error {
	if p.Empty() {
		return nil
	}
	if p.Cycles > 1 && p.Every <= 0 {
		return fmt.Errorf("%d cycles need a period: --every", p.Cycles)
	}
	if p.Cycles < 0 {
		return fmt.Errorf("cycles %d: want 1 or more", p.Cycles)
	}
	if d <= 0 {
		return errors.New("events need a run of a duration (-d/--test-time), not of a count: their times are in it")
	}
	for _, e := range p.Timeline() {
		if e.At >= d {
			return fmt.Errorf("event at %s (%s) is past the run's end (%s)", e.At, label(e), d)
		}
	}
	return nil
}

// label names an event with its cycle.
func label(e Event) string {
	if e.Cycle > 0 {
		return fmt.Sprintf("%s, cycle %d", e.Text, e.Cycle)
	}
	return e.Text
}

// scenario is the scenario file's shape.
type scenario struct {
	Cycles int    `yaml:"cycles"`
	Every  string `yaml:"every"`
	Events []struct {
		At string `yaml:"at"`
		Do string `yaml:"do"`
	} `yaml:"events"`
}

// ParseScenario reads a scenario file (YAML: cycles, every, and events,
// each with at and do; unknown fields refused) into a plan.
func ParseScenario(data []byte) (*Plan, error) {
	var s scenario
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	p := &Plan{Cycles: s.Cycles}
	if s.Every != "" {
		d, err := time.ParseDuration(s.Every)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("scenario: every %q: want a duration such as 60s", s.Every)
		}
		p.Every = d
	}
	for i, e := range s.Events {
		if e.At == "" || e.Do == "" {
			return nil, fmt.Errorf("scenario: event %d needs at and do", i+1)
		}
		ev, err := Parse("at=" + e.At + " " + e.Do)
		if err != nil {
			return nil, fmt.Errorf("scenario: event %d: %w", i+1, err)
		}
		p.Events = append(p.Events, ev)
	}
	if len(p.Events) == 0 {
		return nil, errors.New("scenario: no events")
	}
	return p, nil
}
