package pcap

import (
	"bytes"
	"net"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/trace"
)

// TestParseRequest: a RESP array or an inline line; a part waits; what
// is not a command is refused.
func TestParseRequest(t *testing.T) {
	tests := []struct {
		in   string
		args []string
		n    int
		bad  bool
	}{
		{"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*1", []string{"GET", "k"}, 20, false},
		{"*2\r\n$3\r\nGET\r\n$1\r\n", nil, 0, false},
		{"PING\r\n", []string{"PING"}, 6, false},
		{"*1\r\n:3\r\n", nil, 0, true},
		{"*x\r\n", nil, 0, true},
	}
	for _, tc := range tests {
		args, n, bad := parseRequest([]byte(tc.in))
		var got []string
		for _, a := range args {
			got = append(got, string(a))
		}
		assert.Equal(t, tc.args, got, tc.in)
		assert.Equal(t, tc.n, n, tc.in)
		assert.Equal(t, tc.bad, bad, tc.in)
	}
}

// FuzzParseRequest: no input panics the parser, and what it takes is
// within what it was given.
func FuzzParseRequest(f *testing.F) {
	f.Add([]byte("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"))
	f.Add([]byte("PING\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, n, _ := parseRequest(b)
		assert.LessOrEqual(t, n, len(b))
	})
}

// packets writes a pcap of one connection: the client's segments and the
// server's, each at its time, in the order given.
type packets struct {
	buf        bytes.Buffer
	w          *pcapgo.Writer
	cseq, sseq uint32
	t0         time.Time
}

func newPackets(t *testing.T) *packets {
	p := &packets{cseq: 1000, sseq: 5000, t0: time.Unix(1700000000, 0)}
	p.w = pcapgo.NewWriter(&p.buf)
	require.NoError(t, p.w.WriteFileHeader(65536, layers.LinkTypeEthernet))
	return p
}

// send writes one segment: toServer from 127.0.0.1:40000 to :6379.
func (p *packets) send(t *testing.T, at time.Duration, toServer bool, payload string) {
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: net.IP{127, 0, 0, 1}, DstIP: net.IP{127, 0, 0, 1}}
	tcp := &layers.TCP{SrcPort: 40000, DstPort: 6379, ACK: true, Window: 1000}
	seq := &p.cseq
	if !toServer {
		tcp.SrcPort, tcp.DstPort, seq = 6379, 40000, &p.sseq
	}
	tcp.Seq = *seq
	*seq += uint32(len(payload))
	require.NoError(t, tcp.SetNetworkLayerForChecksum(ip))
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{0, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{0, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
	b := gopacket.NewSerializeBuffer()
	require.NoError(t, gopacket.SerializeLayers(b, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, tcp, gopacket.Payload(payload)))
	data := b.Bytes()
	require.NoError(t, p.w.WritePacket(gopacket.CaptureInfo{Timestamp: p.t0.Add(at), CaptureLength: len(data), Length: len(data)}, data))
}

// TestRead: pipelined commands in one segment and a command split over
// two, each reply matched to its command in order, with its kind and
// time; a MONITOR's feed answers nothing.
func TestRead(t *testing.T) {
	p := newPackets(t)
	p.send(t, 0, true, "*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n*2\r\n$3\r\nGET\r\n$1\r\na\r\n")
	p.send(t, 100*time.Microsecond, false, "+OK\r\n$1\r\n1\r\n")
	p.send(t, time.Millisecond, true, "*2\r\n$4\r\nINCR\r\n$1")
	p.send(t, 1100*time.Microsecond, true, "\r\nn\r\n")
	p.send(t, 1300*time.Microsecond, false, ":1\r\n")
	p.send(t, 2*time.Millisecond, true, "MONITOR\r\n")
	p.send(t, 2100*time.Microsecond, false, "+OK\r\n+1700000000.1 [0 127.0.0.1:1] \"PING\"\r\n")
	var got []trace.Record
	st, err := Read(&p.buf, 6379, func(r *trace.Record) error {
		c := *r
		got = append(got, c)
		return nil
	})
	require.NoError(t, err)
	require.Len(t, got, 4)
	assert.Equal(t, "SET", string(got[0].Args[0]))
	assert.Equal(t, trace.ReplyStatus, got[0].Reply)
	assert.Equal(t, 100*time.Microsecond, got[0].ReplyAfter)
	assert.Equal(t, trace.ReplyBulk, got[1].Reply)
	assert.Equal(t, int64(1), got[1].ReplyLen, "the bulk's length")
	assert.Equal(t, []byte("n"), got[2].Args[1], "a command split over two segments, dated by the second")
	assert.Equal(t, 1100*time.Microsecond, got[2].At)
	assert.Equal(t, trace.ReplyInteger, got[2].Reply)
	assert.Equal(t, 200*time.Microsecond, got[2].ReplyAfter)
	assert.Equal(t, "MONITOR", string(got[3].Args[0]))
	assert.True(t, st.First.Equal(p.t0))
	st.First = time.Time{}
	assert.Equal(t, Stats{Packets: 7, Commands: 4, Connections: 1, Replies: 3, Feed: 2, Span: 2 * time.Millisecond}, st)
}

// TestReadRefuses: not a capture, or no RESP on the port.
func TestReadRefuses(t *testing.T) {
	_, err := Read(bytes.NewReader([]byte("OK\n")), 6379, nil)
	assert.ErrorContains(t, err, "not a packet capture")
	_, err = Read(bytes.NewReader([]byte("not a capture at all")), 6379, nil)
	assert.ErrorContains(t, err, "not a pcap or pcapng file")
	p := newPackets(t)
	p.send(t, 0, true, "PING\r\n")
	_, err = Read(&p.buf, 7000, nil)
	assert.EqualError(t, err, "no RESP command to port 7000 in 1 packets (--port names the server's port)")
}
