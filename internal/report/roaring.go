package report

import (
	"fmt"
	"strings"

	"github.com/tairbench/tairbench/pkg/result"
)

// RoaringNote flags a suite case whose commands failed, and says where
// its capacity search broke (or that it gave no answer), as the terminal
// and the HTML report show it.
func RoaringNote(cr result.RoaringCaseResult) string {
	if c := cr.Capacity; c != nil {
		var parts []string
		switch {
		case c.Unstable:
			parts = append(parts, "!! no stable answer: the runs contradict each other (see the capacity table)")
		case c.HighestHeld == 0 && len(c.Steps) > 0:
			parts = append(parts, fmt.Sprintf("!! no rate held (first tried %.0f req/s)", c.Steps[0].Rate))
		case c.BrokeAt > 0:
			parts = append(parts, fmt.Sprintf("broke at %.0f req/s", c.BrokeAt))
		default:
			parts = append(parts, "never broke")
		}
		parts = append(parts, fmt.Sprintf("%d step(s)", len(c.Steps)))
		if c.ClientBound {
			parts = append(parts, "!! lower bound: client-limited")
		}
		if n := len(c.Confirmations); n > 1 && c.Confirm != nil {
			parts = append(parts, "!! stepped down: a confirming run broke")
		}
		return strings.Join(parts, ", ")
	}
	if cr.Run == nil {
		return "!! not run"
	}
	t := cr.Run.Totals
	switch {
	case t.Ops == 0:
		return "!! no command completed"
	case t.Errors > 0:
		return fmt.Sprintf("!! %.1f%% errors", 100*t.ErrorRate)
	}
	return ""
}
