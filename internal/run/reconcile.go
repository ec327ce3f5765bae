package run

import (
	"fmt"
	"time"

	"github.com/tairbench/tairbench/internal/serverstat"
	"github.com/tairbench/tairbench/pkg/result"
)

// clientView is what the client knows that explains a difference with
// the server's count.
type clientView struct {
	// Counted are the commands the client got a reply for (warm-up and
	// after the deadline included).
	Counted int64
	// Lost are the commands of requests lost on their connection: the
	// server may or may not have run them.
	Lost int64
	// Connections is the run's own connections to the server (0 when
	// unknown, as over a cluster).
	Connections int
	// Interrupted says the run was cut by the user.
	Interrupted bool
	// Follows says the run followed the primary the Sentinels named: a
	// new life may be another server (a replica promoted), not a restart.
	Follows bool
}

// reconcile compares, life by life of the server, the calls and rejected
// calls of the commands between readings with what the client counted;
// nil when the server gives no command statistics (they are then listed
// as missing).
func (tl *timeline) reconcile(commands []string, cv clientView, start time.Time) *result.Reconciliation {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if len(tl.readings[len(tl.readings)-1].Calls) == 0 {
		return nil
	}
	r := &result.Reconciliation{Commands: commands, Client: cv.Counted, Complete: true, Lives: []result.ServerLife{}}
	first := 0
	for i := 1; i <= len(tl.readings); i++ {
		if i < len(tl.readings) && !serverstat.Restarted(tl.readings[i-1], tl.readings[i]) {
			continue
		}
		// readings[first:i] are one life; the first life counts from the
		// run's first reading, a later one from its start (0).
		var base *serverstat.Reading
		if first == 0 {
			base = &tl.readings[0]
		}
		life := lifeOf(commands, base, tl.readings[first], tl.readings[i-1], start)
		// A life that restarted ended after its last reading.
		life.EndRead = i == len(tl.readings) && !tl.lastFailed
		r.Lives = append(r.Lives, life)
		r.Server += life.Calls + life.Rejected
		r.Rejected += life.Rejected
		r.Failed += life.Failed
		r.Complete = r.Complete && life.EndRead
		first = i
	}
	r.Match = r.Complete && r.Server == r.Client
	d := r.Server - r.Client
	r.Explained = r.Complete && d > 0 && d <= cv.Lost
	if r.Explained {
		r.Note = fmt.Sprintf("the server ran %d of the %d commands lost on their connection (their replies never came)", d, cv.Lost)
		r.Causes = []string{fmt.Sprintf("lost requests: %d commands were lost on their connection, %d of which the server ran", cv.Lost, d)}
	} else if !r.Match {
		r.Note, r.Causes = explain(r, cv, tl.maxClients())
	}
	return r
}

// lifeOf counts the commands of one life between base (nil: the life's
// start, when every counter was 0) and its last reading.
func lifeOf(commands []string, base *serverstat.Reading, firstR, last serverstat.Reading, start time.Time) result.ServerLife {
	l := result.ServerLife{RunID: last.Life, FirstS: round3(firstR.At.Sub(start).Seconds()), LastS: round3(last.At.Sub(start).Seconds())}
	for _, c := range commands {
		l.Calls += last.Calls[c]
		l.Rejected += last.Rejected[c]
		l.Failed += last.Failed[c]
		if base != nil {
			l.Calls -= base.Calls[c]
			l.Rejected -= base.Rejected[c]
			l.Failed -= base.Failed[c]
		}
	}
	return l
}

// maxClients is the most connected clients a reading saw (-1: none given).
func (tl *timeline) maxClients() int {
	most := -1
	for _, r := range tl.readings {
		if v, ok := r.Get(serverstat.Clients); ok && int(v) > most {
			most = int(v)
		}
	}
	return most
}

// explain says how the counts differ and names the causes observed;
// it never guesses one it did not see.
func explain(r *result.Reconciliation, cv clientView, clients int) (string, []string) {
	d := r.Server - r.Client
	note := fmt.Sprintf("the server answered %d %s the client counted", abs(d), moreOrFewer(d))
	if !r.Complete {
		note = fmt.Sprintf("the readings saw %d answered, %d %s the client counted, and missed what ran between a life's last reading and its end",
			r.Server, abs(d), moreOrFewer(d))
	}
	var causes []string
	if n := len(r.Lives) - 1; n > 0 && cv.Follows {
		causes = append(causes, fmt.Sprintf("primary changed: the readings reached another server %d time(s) (first at %.1f s), as the Sentinels named it; a promoted replica's counts include the writes it replicated", n, r.Lives[1].FirstS))
	} else if n > 0 {
		causes = append(causes, fmt.Sprintf("restart: the server restarted %d time(s) (a new life first read at %.1f s): what the old process ran after its last reading is unknown", n, r.Lives[1].FirstS))
	}
	if last := r.Lives[len(r.Lives)-1]; !last.EndRead {
		causes = append(causes, fmt.Sprintf("stopped answering: the server's last reading failed; its count after %.1f s is unknown", last.LastS))
	}
	if cv.Lost > 0 {
		causes = append(causes, fmt.Sprintf("lost requests: %d commands were lost on their connection, and the server may have run them", cv.Lost))
	}
	if cv.Interrupted {
		causes = append(causes, "interrupt: requests in flight were abandoned, and the server may have run them")
	}
	if d > 0 && cv.Connections > 0 && clients > cv.Connections+1 {
		causes = append(causes, fmt.Sprintf("other clients: up to %d clients were connected, this run had %d connections (and one for these readings)", clients, cv.Connections))
	}
	if len(causes) == 0 {
		causes = append(causes, "unexplained: no restart, lost request, interrupt or other client was seen")
	}
	return note, causes
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func moreOrFewer(d int64) string {
	if d > 0 {
		return "more than"
	}
	return "fewer than"
}
