package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	driver "github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/ledger"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/pkg/result"
)

// ledgerPrefix starts the write ledger's counters' keys.
const ledgerPrefix = "tairbench:ledger:"

// ledgerKeys is how many counters each connection writes in turn.
const ledgerKeys = 16

// ledgerConflicts refuses what a ledger run cannot take: its writes are
// its own, one a request (or INCR and WAIT pipelined).
func ledgerConflicts(o Options) error {
	switch {
	case len(o.TemplateFlags) > 0:
		return fmt.Errorf("--verify-writes sends its own writes (INCR of counters it owns): leave %s out", o.TemplateFlags[0])
	case o.Workload != "":
		return errors.New("--verify-writes sends its own writes: leave --workload out")
	case o.PipelineGiven || o.BatchingGiven || o.Window > 0:
		return errors.New("--verify-writes sends one write a request (with WAIT after it for --wait-replicas): leave -P, -batching and -window out")
	case o.Preload:
		return errors.New("--verify-writes starts its counters at 0: leave --preload out")
	case o.Target.Cluster:
		return errors.New("--verify-writes is not built for a cluster yet: its connections write to one server")
	case o.SLO != nil:
		return errors.New("--verify-writes judges one run: leave --slo out")
	case o.WaitReplicas < 0:
		return errors.New("--wait-replicas must not be negative")
	case !o.VerifyWrites && o.WaitReplicas > 0:
		return errors.New("--wait-replicas waits for the write ledger's writes: give --verify-writes")
	}
	return nil
}

// withLedger makes the runner's workload the ledger's writes.
func (r *runner) withLedger() {
	o := r.o
	waitMS := int(max(o.WaitTimeout, time.Millisecond) / time.Millisecond)
	r.ledger = ledger.New(ledgerPrefix, o.Parallel, ledgerKeys, o.WaitReplicas, waitMS)
	r.w.Sources = func(id int) driver.Source { return r.ledger.Book(id) }
	if n := r.ledger.CommandsPerRequest(); n > 1 {
		r.w.Mode, r.w.N = driver.Pipeline, n
	}
}

// ledgerCommand names the ledger's writes for the run's label.
func (r *runner) ledgerCommand() string {
	s := fmt.Sprintf("INCR %sCONN:0..%d (write ledger)", ledgerPrefix, ledgerKeys-1)
	if r.ledger.Wait > 0 {
		s += fmt.Sprintf(", WAIT %d %d", r.ledger.Wait, r.ledger.WaitMS)
	}
	return s
}

// resetLedger deletes the counters, so that each starts at 0.
func (r *runner) resetLedger(ctx context.Context) error {
	keys := r.ledger.AllKeys()
	if _, err := driver.Exchange(ctx, r.tg, [][]string{append([]string{"DEL"}, keys...)}); err != nil {
		return fmt.Errorf("--verify-writes: clearing the counters: %w", err)
	}
	return nil
}

// readLedger reads the counters back and puts the ledger's verdict in res.
func (r *runner) readLedger(ctx context.Context, res *result.Run) {
	keys := r.ledger.AllKeys()
	cmds := make([][]string, len(keys))
	for i, k := range keys {
		cmds[i] = []string{"GET", k}
	}
	values := make([]int64, len(keys))
	answers, err := driver.Exchange(ctx, r.tg, cmds)
	for i := 0; err == nil && i < len(answers); i++ {
		switch a := answers[i]; {
		case a.Err:
			err = fmt.Errorf("GET %s: %s", keys[i], a.Text)
		case a.Text != "(nil)":
			values[i], err = strconv.ParseInt(a.Text, 10, 64)
		}
	}
	res.Ledger = r.ledger.Verdict(values)
	if err != nil {
		res.Ledger.ReadError = err.Error()
	}
	res.Warnings = report.Warnings(res)
}
