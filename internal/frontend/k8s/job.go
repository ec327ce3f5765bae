// Package k8s writes the Kubernetes manifest that runs one tairbench
// command from N pods at once: an Indexed Job whose pod i runs the command
// with --shard i/N and a shared --start-at, so that the results merge with
// `tairbench merge`.
package k8s

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"time"
)

// Options describe the Job.
type Options struct {
	Name        string
	Namespace   string
	Image       string
	Parallelism int
	// CPU and Memory are each pod's requests and limits ("2", "1Gi").
	CPU, Memory string
	// StartAt is the wall-clock time every pod starts measuring.
	StartAt time.Time
	// ResultsClaim, when set, is a PersistentVolumeClaim mounted at
	// /results where each pod writes run-INDEX.json; otherwise each pod
	// writes its result to standard output (kubectl logs).
	ResultsClaim string
	// Args is the tairbench command to run ("redis", "-h", …).
	Args []string
	// MetricsPort, when above 0, makes each pod serve its run's metrics
	// there (--metrics-addr) with the usual Prometheus scrape annotations.
	MetricsPort int
}

var dns1123 = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// Check validates the options.
func (o Options) Check() error {
	switch {
	case !dns1123.MatchString(o.Name) || len(o.Name) > 52:
		return fmt.Errorf("--name %q: lower-case letters, digits and '-', at most 52 characters", o.Name)
	case o.Parallelism < 1:
		return errors.New("--parallelism must be at least 1")
	case len(o.Args) == 0:
		return errors.New("give the tairbench command after --, for example: -- redis -h HOST -d 60 -command 'GET k-__RAND__'")
	case o.Args[0] != "redis" && o.Args[0] != "ycsb":
		return fmt.Errorf("%q does not take --shard and --start-at; use redis or ycsb", o.Args[0])
	case o.Image == "":
		return errors.New("--image is empty")
	case o.MetricsPort < 0 || o.MetricsPort > 65535:
		return fmt.Errorf("--metrics-port %d: want 1 … 65535", o.MetricsPort)
	}
	return nil
}

// Command is pod INDEX's command line (INDEX left to the Job controller).
func (o Options) Command() []string {
	out := append([]string{"/tairbench"}, o.Args...)
	n := strconv.Itoa(o.Parallelism)
	out = append(out, "--shard", "$(JOB_COMPLETION_INDEX)/"+n, "--start-at", o.StartAt.UTC().Format(time.RFC3339))
	if o.MetricsPort > 0 {
		out = append(out, "--metrics-addr", "0.0.0.0:"+strconv.Itoa(o.MetricsPort))
	}
	if o.ResultsClaim != "" {
		return append(out, "--json", "/results/run-$(JOB_COMPLETION_INDEX).json")
	}
	return append(out, "--json", "-")
}

// Manifest returns the Job as a JSON object (valid YAML for kubectl apply).
func (o Options) Manifest() map[string]any {
	resources := map[string]any{}
	if o.CPU != "" || o.Memory != "" {
		q := map[string]any{}
		if o.CPU != "" {
			q["cpu"] = o.CPU
		}
		if o.Memory != "" {
			q["memory"] = o.Memory
		}
		resources = map[string]any{"requests": q, "limits": q}
	}
	container := map[string]any{
		"name":    "tairbench",
		"image":   o.Image,
		"command": o.Command(),
		"env": []any{map[string]any{
			"name": "JOB_COMPLETION_INDEX",
			"valueFrom": map[string]any{"fieldRef": map[string]any{
				"fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}},
		}},
		"resources": resources,
	}
	spec := map[string]any{"restartPolicy": "Never", "containers": []any{container}}
	if o.ResultsClaim != "" {
		container["volumeMounts"] = []any{map[string]any{"name": "results", "mountPath": "/results"}}
		spec["volumes"] = []any{map[string]any{"name": "results",
			"persistentVolumeClaim": map[string]any{"claimName": o.ResultsClaim}}}
	}
	podMeta := map[string]any{"labels": map[string]any{"app.kubernetes.io/name": "tairbench"}}
	if o.MetricsPort > 0 {
		container["ports"] = []any{map[string]any{"name": "metrics", "containerPort": o.MetricsPort}}
		podMeta["annotations"] = map[string]any{"prometheus.io/scrape": "true", "prometheus.io/port": strconv.Itoa(o.MetricsPort),
			"prometheus.io/path": "/metrics"}
	}
	meta := map[string]any{"name": o.Name, "labels": map[string]any{"app.kubernetes.io/name": "tairbench"}}
	if o.Namespace != "" {
		meta["namespace"] = o.Namespace
	}
	return map[string]any{
		"apiVersion": "batch/v1",
		"kind":       "Job",
		"metadata":   meta,
		"spec": map[string]any{
			"completionMode": "Indexed",
			"completions":    o.Parallelism,
			"parallelism":    o.Parallelism,
			"backoffLimit":   0,
			"template": map[string]any{
				"metadata": podMeta,
				"spec":     spec,
			},
		},
	}
}

// Write prints the manifest.
func (o Options) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(o.Manifest())
}
