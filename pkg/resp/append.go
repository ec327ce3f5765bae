package resp

import "strconv"

// AppendSimple appends a simple string reply (+s).
func AppendSimple(dst []byte, s string) []byte {
	dst = append(dst, '+')
	dst = append(dst, s...)
	return append(dst, '\r', '\n')
}

// AppendOK appends +OK.
func AppendOK(dst []byte) []byte { return append(dst, "+OK\r\n"...) }

// AppendError appends an error reply; msg should start with a code such as "ERR".
func AppendError(dst []byte, msg string) []byte {
	dst = append(dst, '-')
	for i := 0; i < len(msg); i++ { // an error line must not break the framing
		c := msg[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		dst = append(dst, c)
	}
	return append(dst, '\r', '\n')
}

// AppendInt appends an integer reply.
func AppendInt(dst []byte, n int64) []byte {
	dst = append(dst, ':')
	dst = strconv.AppendInt(dst, n, 10)
	return append(dst, '\r', '\n')
}

// AppendBulk appends a bulk string reply.
func AppendBulk(dst []byte, b []byte) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(b)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, b...)
	return append(dst, '\r', '\n')
}

// AppendBulkString appends a bulk string reply.
func AppendBulkString(dst []byte, s string) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(s)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, s...)
	return append(dst, '\r', '\n')
}

// AppendNil appends the RESP2 null bulk string.
func AppendNil(dst []byte) []byte { return append(dst, "$-1\r\n"...) }

// AppendNilArray appends the RESP2 null array.
func AppendNilArray(dst []byte) []byte { return append(dst, "*-1\r\n"...) }

// AppendArray appends an array header for n elements.
func AppendArray(dst []byte, n int) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, '\r', '\n')
}

// AppendCommand appends a command as an array of bulk strings.
func AppendCommand(dst []byte, args ...string) []byte {
	dst = AppendArray(dst, len(args))
	for _, a := range args {
		dst = AppendBulkString(dst, a)
	}
	return dst
}
