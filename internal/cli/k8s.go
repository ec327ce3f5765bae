package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/frontend/k8s"
)

func newK8sCmd(a *app) *cobra.Command {
	root := &cobra.Command{Use: "k8s", Short: "Kubernetes manifests that run a load from many machines"}
	o := k8s.Options{}
	var startIn time.Duration
	job := &cobra.Command{
		Use:   "job --parallelism N [flags] -- redis|ycsb ARGS...",
		Short: "Print an Indexed Job whose N pods run one command together (--shard i/N, one --start-at)",
		Long: `Prints a Kubernetes Job (completionMode: Indexed) of N pods. Pod i runs the
command with --shard i/N (its own seed stream and slice) and the same
--start-at, so that all start measuring at one wall-clock time. Each pod
writes its result to /results/run-i.json on --results-claim, or to its log
(kubectl logs) otherwise; merge them with 'tairbench merge'.

  tairbench k8s job --parallelism 8 --image registry/tairbench:v1 --cpu 2 --memory 1Gi \
    -- redis -h r-xxx.redis.rds.aliyuncs.com -a user:pw -d 60 -p 50 -command 'GET k-__RAND__' | kubectl apply -f -`,
		RunE: func(c *cobra.Command, args []string) error {
			o.Args = args
			o.StartAt = time.Now().Add(startIn).Truncate(time.Second)
			if err := o.Check(); err != nil {
				return err
			}
			fmt.Fprintf(a.Err, "pods start measuring at %s (in %s): schedule them before then\n", o.StartAt.UTC().Format(time.RFC3339), startIn)
			return o.Write(a.Out)
		},
	}
	fs := job.Flags()
	fs.StringVar(&o.Name, "name", "tairbench", "the Job's name")
	fs.StringVar(&o.Namespace, "namespace", "", "the Job's namespace (default: kubectl's)")
	fs.IntVar(&o.MetricsPort, "metrics-port", 0, "each pod serves its run's metrics on this port (--metrics-addr), with Prometheus scrape annotations")
	fs.StringVar(&o.Image, "image", "tairbench:"+Version, "the container image ('make image' builds one)")
	fs.IntVar(&o.Parallelism, "parallelism", 2, "pods, each one client")
	fs.StringVar(&o.CPU, "cpu", "", "each pod's CPU request and limit, as 2")
	fs.StringVar(&o.Memory, "memory", "", "each pod's memory request and limit, as 1Gi")
	fs.StringVar(&o.ResultsClaim, "results-claim", "", "a PersistentVolumeClaim to write the results to (default: the pods' logs)")
	fs.DurationVar(&startIn, "start-in", time.Minute, "how long from now the pods start measuring")
	root.AddCommand(job)
	return root
}
