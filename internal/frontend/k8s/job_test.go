package k8s

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestManifestIsAValidIndexedJob decodes the manifest into Kubernetes' own
// API types, refusing any field they do not know.
func TestManifestIsAValidIndexedJob(t *testing.T) {
	o := Options{Name: "bench-1", Namespace: "load", Image: "registry.example/tairbench:v1", Parallelism: 3, CPU: "2", Memory: "1Gi",
		StartAt: time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC), ResultsClaim: "results",
		Args: []string{"redis", "-h", "r-xxx", "-d", "60", "-command", "GET k-__RAND__"}}
	require.NoError(t, o.Check())
	var b bytes.Buffer
	require.NoError(t, o.Write(&b))
	dec := json.NewDecoder(&b)
	dec.DisallowUnknownFields()
	var job batchv1.Job
	require.NoError(t, dec.Decode(&job), "a batch/v1 Job, every field known to the API")
	assert.Equal(t, "batch/v1", job.APIVersion)
	assert.Equal(t, "Job", job.Kind)
	require.NotNil(t, job.Spec.CompletionMode)
	assert.Equal(t, batchv1.IndexedCompletion, *job.Spec.CompletionMode)
	assert.Equal(t, int32(3), *job.Spec.Completions)
	assert.Equal(t, int32(3), *job.Spec.Parallelism)
	pod := job.Spec.Template.Spec
	assert.Equal(t, corev1.RestartPolicyNever, pod.RestartPolicy)
	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	cmd := strings.Join(c.Command, " ")
	assert.Contains(t, cmd, "/tairbench redis -h r-xxx -d 60 -command GET k-__RAND__ --shard $(JOB_COMPLETION_INDEX)/3 --start-at 2026-11-23T15:00:00Z")
	assert.Contains(t, cmd, "--json /results/run-$(JOB_COMPLETION_INDEX).json")
	require.Len(t, c.Env, 1)
	assert.Equal(t, "metadata.annotations['batch.kubernetes.io/job-completion-index']", c.Env[0].ValueFrom.FieldRef.FieldPath)
	assert.Equal(t, "2", c.Resources.Limits.Cpu().String())
	assert.Equal(t, "1Gi", c.Resources.Requests.Memory().String())
	assert.Equal(t, "results", pod.Volumes[0].PersistentVolumeClaim.ClaimName)

	o.ResultsClaim = ""
	assert.Equal(t, []string{"--json", "-"}, o.Command()[len(o.Command())-2:], "without a claim, results go to the pods' logs")
}

func TestCheck(t *testing.T) {
	ok := Options{Name: "tb", Image: "i", Parallelism: 2, Args: []string{"ycsb", "run", "redis"}}
	require.NoError(t, ok.Check())
	for _, tc := range []struct {
		mod func(*Options)
		err string
	}{
		{func(o *Options) { o.Name = "Bad_Name" }, "--name"},
		{func(o *Options) { o.Parallelism = 0 }, "--parallelism"},
		{func(o *Options) { o.Args = nil }, "after --"},
		{func(o *Options) { o.Args = []string{"search"} }, "--shard"},
	} {
		o := ok
		tc.mod(&o)
		assert.ErrorContains(t, o.Check(), tc.err)
	}
}

func TestMetricsPort(t *testing.T) {
	o := Options{Name: "tb", Image: "tairbench:v1", Parallelism: 2, Args: []string{"redis", "-h", "r", "-d", "60"}, MetricsPort: 9100}
	require.NoError(t, o.Check())
	assert.Contains(t, o.Command(), "0.0.0.0:9100")
	m := o.Manifest()
	tmpl := m["spec"].(map[string]any)["template"].(map[string]any)
	ann := tmpl["metadata"].(map[string]any)["annotations"].(map[string]any)
	assert.Equal(t, "true", ann["prometheus.io/scrape"])
	assert.Equal(t, "9100", ann["prometheus.io/port"])
	c := tmpl["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	assert.Equal(t, 9100, c["ports"].([]any)[0].(map[string]any)["containerPort"])
	o.Args = []string{"ycsb", "run", "redis", "-P", "workloads/workloada"} // ycsb takes --metrics-addr too
	require.NoError(t, o.Check())
	assert.Contains(t, o.Command(), "0.0.0.0:9100")
}
