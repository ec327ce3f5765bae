// Package tmplrun makes a run of a RESP command template: the driver's
// template spec and workload become a run.Spec with the driver's
// factory, identification, INFO sampler and reconciliation. It sits above
// the run layer, which imports no driver.
package tmplrun

import (
	"maps"
	"slices"
	"strings"

	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/pkg/result"
)

// FromTemplate is the spec that runs the template spec ts's workload w
// against t with the engine settings cfg (its OpsPerRequest is set from w).
func FromTemplate(ts redis.TemplateSpec, name, version string, t endpoint.Target, w redis.Workload, cfg engine.Config) run.Spec {
	cfg.OpsPerRequest = w.OpsPerRequest()
	cfg.Operations = w.OpNames()
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = t.RequestTimeout()
	}
	ranges := w.Program.RangeSpecs()
	for _, o := range w.Ops[min(1, len(w.Ops)):] {
		maps.Copy(ranges, o.Program.RangeSpecs())
	}
	spec := run.Spec{
		Name:    name,
		Command: strings.Join(ts.Templates(), " | "),
		Version: version,
		Config: result.RunConfig{
			Target: t.Result(),
			Mode:   w.ModeName(),
			Template: &result.TemplateConfig{Ranges: ranges, DataSize: ts.Options.DataSize,
				Batching: ts.Batching, Pipeline: ts.Pipeline, Window: ts.Window},
		},
		Engine: cfg,
	}
	f := &redis.Factory{Target: t, Workload: w, Workers: cfg.Workers}
	spec.Factory = f
	if t.Cluster { // a standalone server's client count is held against the run's connections
		spec.Routing = func() *result.ClusterRouting { return target.Routing(f.ClusterRouting()) }
	}
	target.Identified(&spec, t)
	for _, o := range w.Ops {
		if w.Mixed() {
			spec.Operations = append(spec.Operations, result.Operation{Name: o.Name, Command: o.Template, Weight: o.Weight,
				MissesHidden: !redis.ReplyShowsMiss(o.Template)})
		}
	}
	if ts.ServerStats && !t.Cluster {
		spec.Sampler = redis.NewInfoSampler(t)
		for _, tmpl := range ts.Templates() {
			name, _, _ := strings.Cut(strings.TrimSpace(tmpl), " ")
			if name = strings.ToLower(name); !slices.Contains(spec.Reconcile, name) {
				spec.Reconcile = append(spec.Reconcile, name)
			}
		}
	}
	return spec
}
