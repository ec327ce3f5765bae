package redis

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/runner"
	"github.com/tairbench/tairbench/internal/target"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
	"github.com/tairbench/tairbench/pkg/result"
)

// TemplateSpec is a command template with its ranges and how commands are
// grouped: what 'tairbench redis', the suites and every later front-end run.
type TemplateSpec struct {
	Template string
	Options  cmdtmpl.Options
	// Batching wraps N commands in MULTI/EXEC; Pipeline sends N per write.
	// At most one of them is above 0.
	Batching, Pipeline int
	// ServerStats samples a standalone target's INFO once a second and
	// reconciles the template's command with INFO commandstats (a cluster
	// is not sampled: one node's INFO is not the cluster's).
	ServerStats bool
}

// Workload parses and compiles the template and checks the grouping.
func (ts TemplateSpec) Workload() (Workload, error) {
	w := Workload{Mode: Single, N: 1}
	switch {
	case ts.Batching < 0 || ts.Pipeline < 0:
		return w, errors.New("-batching and -P must not be negative")
	case ts.Batching > 0 && ts.Pipeline > 0:
		return w, errors.New("-batching (MULTI/EXEC) and -P (pipelining) cannot be combined")
	case ts.Batching > 0:
		w.Mode, w.N = Batch, ts.Batching
	case ts.Pipeline > 0:
		w.Mode, w.N = Pipeline, ts.Pipeline
	}
	tp, err := cmdtmpl.Parse(ts.Template)
	if err != nil {
		return w, fmt.Errorf("bad -command: %w", err)
	}
	if w.Program, err = cmdtmpl.Compile(tp, ts.Options); err != nil {
		return w, fmt.Errorf("bad -command: %w", err)
	}
	return w, nil
}

// ModeName says how the workload groups commands, for summaries and results.
func (w Workload) ModeName() string {
	switch w.Mode {
	case Batch:
		return fmt.Sprintf("MULTI/EXEC batches of %d", w.N)
	case Pipeline:
		return fmt.Sprintf("pipeline of %d", w.N)
	default:
		return "one command per round trip"
	}
}

// Spec is the runner spec that runs the template spec's workload w against
// t with the engine settings cfg (its OpsPerRequest is set from w).
func (ts TemplateSpec) Spec(name, version string, t target.Target, w Workload, cfg engine.Config) runner.Spec {
	cfg.OpsPerRequest = w.OpsPerRequest()
	spec := runner.Spec{
		Name:    name,
		Command: ts.Template,
		Version: version,
		Config: result.RunConfig{
			Target: t.Result(),
			Mode:   w.ModeName(),
			Template: &result.TemplateConfig{Ranges: w.Program.RangeSpecs(), DataSize: ts.Options.DataSize,
				Batching: ts.Batching, Pipeline: ts.Pipeline},
		},
		Engine:  cfg,
		Factory: &Factory{Target: t, Workload: w},
	}
	if ts.ServerStats && !t.Cluster {
		spec.Sampler = NewInfoSampler(t)
		name, _, _ := strings.Cut(strings.TrimSpace(ts.Template), " ")
		spec.Reconcile = []string{strings.ToLower(name)}
	}
	return spec
}
