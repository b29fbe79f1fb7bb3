package e2e

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// The raw baseline of the files benchmarks, as files/transfer's
// BenchmarkFetchVsRaw has it: two bare libp2p hosts on 127.0.0.1 (TCP,
// libp2p's default security and muxer, no mDNS, no port mapping), one
// serving a file's bytes on a stream, the other writing them to a file
// through a 256 KiB buffer, no hashing.

const rawFileProtocol = protocol.ID("/hyphae-bench/rawfile/1.0.0")

// rawFile is the pair of bare hosts; the path to serve goes first on the
// stream.
type rawFile struct{ srv, cli host.Host }

func newRawFile(b *testing.B) *rawFile {
	b.Helper()
	r := &rawFile{srv: bareHost(b), cli: bareHost(b)}
	r.srv.SetStreamHandler(rawFileProtocol, serveRawFile)
	if err := r.cli.Connect(context.Background(), peer.AddrInfo{ID: r.srv.ID(), Addrs: r.srv.Addrs()}); err != nil {
		b.Fatal(err)
	}
	return r
}

func bareHost(b *testing.B) host.Host {
	b.Helper()
	h, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = h.Close() })
	return h
}

// serveRawFile reads a path line, then sends that file's bytes.
func serveRawFile(s network.Stream) {
	defer s.Close()
	var name []byte
	one := make([]byte, 1)
	for {
		if _, err := io.ReadFull(s, one); err != nil {
			_ = s.Reset()
			return
		}
		if one[0] == '\n' {
			break
		}
		name = append(name, one[0])
	}
	f, err := os.Open(string(name))
	if err != nil {
		_ = s.Reset()
		return
	}
	defer f.Close()
	if _, err := io.CopyBuffer(s, struct{ io.Reader }{f}, make([]byte, 256<<10)); err != nil {
		_ = s.Reset()
	}
}

// copy fetches src into dst (synced when sync is set), timed, and
// removes dst after.
func (r *rawFile) copy(b *testing.B, src, dst string, sync bool) time.Duration {
	b.Helper()
	t0 := time.Now()
	err := r.fetch(src, dst, sync)
	d := time.Since(t0)
	_ = os.Remove(dst)
	if err != nil {
		b.Fatalf("raw copy: %v", err)
	}
	return d
}

func (r *rawFile) fetch(src, dst string, sync bool) error {
	s, err := r.cli.NewStream(context.Background(), r.srv.ID(), rawFileProtocol)
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := s.Write([]byte(src + "\n")); err != nil {
		return err
	}
	_ = s.CloseWrite()
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.CopyBuffer(struct{ io.Writer }{f}, struct{ io.Reader }{s}, make([]byte, 256<<10))
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
