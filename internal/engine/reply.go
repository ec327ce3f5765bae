package engine

import "errors"

// ReplyError is the target's answer refusing a request: the request
// reached the target, so it counts as a failed command, not a lost one.
// Drivers wrap their error replies in it (or give theirs a Replied method).
type ReplyError struct{ Err error }

// Error returns the reply's message.
func (e *ReplyError) Error() string { return e.Err.Error() }

// Unwrap returns the driver's error.
func (e *ReplyError) Unwrap() error { return e.Err }

// Replied marks the error as the target's answer.
func (e *ReplyError) Replied() {}

// IsReply tells a target's refusal (any error with a Replied method, such
// as ReplyError) from a lost request.
func IsReply(err error) bool {
	var r interface{ Replied() }
	return errors.As(err, &r)
}

// Refused counts err in s as one refused command when it is the target's
// answer, keeping its message in buf, and returns nil; any other error
// (the request was lost) is returned as it is.
func (s *Step) Refused(err error, buf *[]byte) error {
	if !IsReply(err) {
		return err
	}
	s.Failed = 1
	*buf = append((*buf)[:0], err.Error()...)
	s.Err = *buf
	return nil
}
