package redis

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tairbench/tairbench/internal/commands"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

// TemplateSpec is a command template with its ranges and how commands are
// grouped: what 'tairbench redis', the suites and every later front-end run.
type TemplateSpec struct {
	Template string
	// Mix, when it has two or more entries, makes the workload mixed: each
	// request draws one of these templates by weight, and every statistic
	// is also kept per entry. Template is then ignored.
	Mix     []MixEntry
	Options cmdtmpl.Options
	// Inline sends commands in the inline protocol (redis-benchmark's
	// PING_INLINE); not with Batching.
	Inline bool
	// Rotate makes each worker cycle through Mix in order, each entry as
	// many requests in a row as its weight, instead of drawing by weight
	// (memtier's --ratio).
	Rotate bool
	// SharedSeed, when not 0, gives every connection the same key sequence.
	SharedSeed uint64
	// Batching wraps N commands in MULTI/EXEC; Pipeline sends N per write;
	// Window keeps N in flight (memtier's --pipeline). At most one of them
	// is above 0.
	Batching, Pipeline, Window int
	// WindowLimit is a Window's commands per connection in all (0: no limit).
	WindowLimit int64
	// ServerStats samples a standalone target's INFO once a second and
	// reconciles the template's command with INFO commandstats (a cluster
	// is not sampled: one node's INFO is not the cluster's).
	ServerStats bool
}

// MixEntry is one template of a mixed workload.
type MixEntry struct {
	// Name names the operation type in reports (default: the command's
	// name in upper case, numbered when two entries share it).
	Name     string
	Template string
	Weight   int
	// Options, when set, are this entry's ranges and data size in place
	// of the spec's (a workload file's operation).
	Options *cmdtmpl.Options
}

// Templates returns the templates the spec sends.
func (ts TemplateSpec) Templates() []string {
	if len(ts.Mix) < 2 {
		return []string{ts.Template}
	}
	out := make([]string, len(ts.Mix))
	for i, m := range ts.Mix {
		out[i] = m.Template
	}
	return out
}

// TemplateError is a template that does not parse or compile; front-ends
// name it with their own option ("bad -command …", "--command …").
type TemplateError struct {
	Template string
	Err      error
}

// Error names the template and what is wrong with it.
func (e *TemplateError) Error() string {
	return fmt.Sprintf("bad command template %q: %v", e.Template, e.Err)
}

// Unwrap returns the parser's error.
func (e *TemplateError) Unwrap() error { return e.Err }

// The workload errors front-ends name with their own flags.
var (
	ErrNegativeGroup    = errors.New("the batch and pipeline sizes must not be negative")
	ErrBatchAndPipeline = errors.New("MULTI/EXEC batches and pipelining cannot be combined")
	ErrInlineBatch      = errors.New("inline commands cannot be batched in MULTI/EXEC")
	ErrZeroWeights      = errors.New("the weights of a mixed workload add up to 0")
)

func compile(template string, opts cmdtmpl.Options) (*cmdtmpl.Program, error) {
	tp, err := cmdtmpl.Parse(template)
	if err != nil {
		return nil, &TemplateError{Template: template, Err: err}
	}
	p, err := cmdtmpl.Compile(tp, opts)
	if err != nil {
		return nil, &TemplateError{Template: template, Err: err}
	}
	return p, nil
}

// Workload parses and compiles the template and checks the grouping.
func (ts TemplateSpec) Workload() (Workload, error) {
	w := Workload{Mode: Single, N: 1, Inline: ts.Inline, Rotate: ts.Rotate, SharedSeed: ts.SharedSeed}
	switch {
	case ts.Batching < 0 || ts.Pipeline < 0 || ts.Window < 0:
		return w, ErrNegativeGroup
	case ts.Batching > 0 && ts.Pipeline > 0, ts.Window > 0 && (ts.Batching > 0 || ts.Pipeline > 0):
		return w, ErrBatchAndPipeline
	case ts.Window > 0 && ts.Inline:
		return w, errors.New("a window pipeline sends RESP, not the inline protocol")
	case ts.Window > 0:
		w.Mode, w.N, w.WindowLimit = Window, ts.Window, ts.WindowLimit
	case ts.Inline && ts.Batching > 0:
		return w, ErrInlineBatch
	case ts.Batching > 0:
		w.Mode, w.N = Batch, ts.Batching
	case ts.Pipeline > 0:
		w.Mode, w.N = Pipeline, ts.Pipeline
	}
	if len(ts.Mix) < 2 {
		var err error
		w.Program, err = compile(ts.Template, ts.Options)
		return w, err
	}
	seen := map[string]int{}
	for _, m := range ts.Mix {
		if m.Weight < 0 {
			return w, fmt.Errorf("the weight of %q must not be negative", m.Template)
		}
		opts := ts.Options
		if m.Options != nil {
			opts = *m.Options
		}
		p, err := compile(m.Template, opts)
		if err != nil {
			return w, err
		}
		name := m.Name
		if name == "" {
			name = strings.ToUpper(p.Template().Name())
			if seen[name]++; seen[name] > 1 {
				name = fmt.Sprintf("%s#%d", name, seen[name])
			}
		}
		w.Ops = append(w.Ops, Op{Name: name, Template: m.Template, Weight: m.Weight, Program: p})
	}
	total := 0
	for _, o := range w.Ops {
		total += o.Weight
	}
	if total == 0 {
		return w, ErrZeroWeights
	}
	w.Program = w.Ops[0].Program
	return w, nil
}

// ModeName says how the workload groups commands, for summaries and results.
func (w Workload) ModeName() string {
	switch w.Mode {
	case Batch:
		return fmt.Sprintf("MULTI/EXEC batches of %d", w.N)
	case Pipeline:
		return fmt.Sprintf("pipeline of %d", w.N)
	case Window:
		return fmt.Sprintf("window of %d commands in flight per connection", w.N)
	default:
		return "one command per round trip"
	}
}

// ReplyShowsMiss says whether a command's reply tells a missing key from
// an empty one (a null or an empty array, which the workers count as
// misses). An integer reply does not: TR.GETBIT, GETBIT, SISMEMBER,
// EXISTS… answer alike for a missing key and an unset bit or member.
func ReplyShowsMiss(command string) bool { return commands.ShowsMiss(command) }
