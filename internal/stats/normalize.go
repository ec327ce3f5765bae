package stats

import "bytes"

// Normalize appends to dst msg with the parts a server quotes from the
// request replaced, so that error replies group by cause: Redis's and
// Tair's "…, with args beginning with: …" tail becomes "…", quoted words
// become '…' and numbers standing alone become N. A quoted word next to
// "command" is kept: it names the command ("ERR unknown command
// 'TR.SETBITS'", "wrong number of arguments for 'get' command"). It does
// not allocate when dst has room.
func Normalize(dst, msg []byte) []byte {
	const tail = "with args beginning with:"
	if i := bytes.Index(msg, []byte(tail)); i >= 0 {
		dst = normalizeHead(dst, msg[:i])
		return append(dst, tail+" …"...)
	}
	return normalizeHead(dst, msg)
}

// isWordByte reports whether c continues a word, so that a digit next to
// it is part of a name (RESP3, v2) rather than a number.
func isWordByte(c byte) bool {
	return c == '_' || (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80
}

func normalizeHead(dst, msg []byte) []byte {
	for i := 0; i < len(msg); {
		c := msg[i]
		switch {
		case (c == '\'' || c == '`' || c == '"') && (i == 0 || !isWordByte(msg[i-1])):
			// An opening quote: not an apostrophe inside a word (field's).
			end := i + 1
			for end < len(msg) && (msg[end] != c || end+1 < len(msg) && isWordByte(msg[end+1])) {
				end++
			}
			if end == len(msg) { // no closing quote: an ordinary character
				dst = append(dst, c)
				i++
				continue
			}
			if bytes.HasSuffix(msg[:i], []byte("command ")) || bytes.HasPrefix(msg[end+1:], []byte(" command")) {
				dst = append(dst, msg[i:end+1]...)
			} else {
				dst = append(dst, c)
				dst = append(dst, "…"...)
				dst = append(dst, c)
			}
			i = end + 1
		case c >= '0' && c <= '9' && (i == 0 || !isWordByte(msg[i-1])):
			end := i
			for end < len(msg) && (msg[end] >= '0' && msg[end] <= '9' || msg[end] == '.') {
				end++
			}
			if end < len(msg) && isWordByte(msg[end]) {
				dst = append(dst, msg[i:end]...) // part of a word (2nd, 64bit): keep
			} else {
				dst = append(dst, 'N')
			}
			i = end
		default:
			dst = append(dst, c)
			i++
		}
	}
	return dst
}
