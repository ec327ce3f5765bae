// Package pcap reads a packet capture (tcpdump's pcap or pcapng) of RESP
// traffic into trace records: each TCP connection to the server's port
// reassembled in both directions (gopacket's tcpassembly), its commands
// parsed in order with the time of the packet that completed them, and
// each reply matched to its command (first in, first out, as pipelining
// answers), with its kind and the time it took.
package pcap

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/google/gopacket/tcpassembly"

	"github.com/tairbench/tairbench/internal/trace"
)

// holdBack is how long a command waits for its reply before it is
// written without one (a blocked BLPOP, a reply lost to the capture), so
// that memory stays bounded by that much traffic.
const holdBack = 10 * time.Second

// Stats is what a capture held.
type Stats struct {
	Packets, Commands int64
	Connections       int
	// Replies were matched to their commands; Unmatched came with none
	// pending (a connection seen from its middle).
	Replies, Unmatched int64
	// Feed counts the lines of MONITOR and SUBSCRIBE feeds, which answer
	// no command.
	Feed int64
	// Gaps counts stretches of a stream the capture missed; Bad, streams
	// that stopped parsing as RESP (each connection's rest left out).
	Gaps, Bad int64
	Span      time.Duration
	// First is the first command's wall-clock time.
	First time.Time
}

// packetSource is pcapgo's readers, pcap or pcapng.
type packetSource interface {
	ReadPacketData() ([]byte, gopacket.CaptureInfo, error)
	LinkType() layers.LinkType
}

// open reads the file's first bytes to choose the reader.
func open(r io.Reader) (packetSource, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(4)
	if err != nil {
		return nil, errors.New("not a packet capture (too short)")
	}
	if bytes.Equal(head, []byte{0x0a, 0x0d, 0x0d, 0x0a}) {
		ng, err := pcapgo.NewNgReader(br, pcapgo.DefaultNgReaderOptions)
		if err != nil {
			return nil, fmt.Errorf("pcapng: %w", err)
		}
		return ng, nil
	}
	pr, err := pcapgo.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("not a pcap or pcapng file: %w", err)
	}
	return pr, nil
}

// Read reads the capture, keeps the TCP traffic to and from port and
// hands each command to emit, in the order the commands came, once its
// reply is known (or holdBack later). A capture with no RESP traffic on
// port is refused.
func Read(r io.Reader, port uint16, emit func(*trace.Record) error) (Stats, error) {
	src, err := open(r)
	if err != nil {
		return Stats{}, err
	}
	c := newConverter(port, emit)
	asm := tcpassembly.NewAssembler(tcpassembly.NewStreamPool(c))
	var last time.Time
	started := map[string]bool{}
	for {
		data, ci, err := src.ReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			return c.stats, fmt.Errorf("packet %d: %w", c.stats.Packets+1, err)
		}
		c.stats.Packets++
		p := gopacket.NewPacket(data, src.LinkType(), gopacket.DecodeOptions{Lazy: true, NoCopy: true})
		tcp, ok := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
		if !ok || p.NetworkLayer() == nil || (uint16(tcp.DstPort) != port && uint16(tcp.SrcPort) != port) {
			continue
		}
		flow := p.NetworkLayer().NetworkFlow()
		if key := flow.String() + " " + tcp.TransportFlow().String(); !started[key] {
			started[key] = true
			if !tcp.SYN { // seen from its middle: it starts at this packet
				syn := *tcp
				syn.SYN, syn.Seq, syn.BaseLayer = true, tcp.Seq-1, layers.BaseLayer{}
				asm.AssembleWithTimestamp(flow, &syn, ci.Timestamp)
			}
		}
		asm.AssembleWithTimestamp(flow, tcp, ci.Timestamp)
		if ci.Timestamp.Sub(last) > time.Second { // segments after a gap wait for a flush
			asm.FlushOlderThan(ci.Timestamp.Add(-time.Second))
			last = ci.Timestamp
		}
		if err := c.flush(ci.Timestamp, false); err != nil {
			return c.stats, err
		}
	}
	asm.FlushAll()
	if err := c.flush(time.Time{}, true); err != nil {
		return c.stats, err
	}
	if c.stats.Commands == 0 {
		return c.stats, fmt.Errorf("no RESP command to port %d in %d packets (--port names the server's port)", port, c.stats.Packets)
	}
	return c.stats, nil
}
