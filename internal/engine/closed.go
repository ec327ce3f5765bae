package engine

// runClosed is the closed loop (ModeClosed, and ModeWindow's, whose
// worker keeps commands in flight between its requests): each request
// goes when the last one's replies came. On Linux, workers that are all
// Pollers run in groups instead (closed_linux.go).
func (l *loop) runClosed() {
	r := l.r
	for r.ctx.Err() == nil && !r.finishing.Load() {
		if !l.claim() {
			return
		}
		l.w.Prepare()
		if !l.exec() {
			return
		}
	}
}
