//go:build !unix

package events

import (
	"context"
	"errors"
)

// alive cannot tell on this system.
func alive(int) bool { return false }

// signal is not built for this system.
func signal(_ context.Context, _ int, _ string, issued func()) Outcome {
	issued()
	return Outcome{Err: errors.New("process events need a Unix system")}
}

// restart is not built for this system.
func restart(_ context.Context, _ Actor, _ int, issued func()) Outcome {
	issued()
	return Outcome{Err: errors.New("process events need a Unix system")}
}
