package transfer_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/files/cas"
	"github.com/hyphae-run/hyphae/files/transfer"
	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
)

// newHost is a libp2p host on 127.0.0.1 only. libp2p.New starts no mDNS
// and maps no ports unless asked (libp2p.NATPortMap), and neither is.
func newHost(t testing.TB) host.Host {
	t.Helper()
	h, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h
}

// connect dials b from a.
func connect(t testing.TB, a, b host.Host) {
	t.Helper()
	if err := a.Connect(context.Background(), peer.AddrInfo{ID: b.ID(), Addrs: b.Addrs()}); err != nil {
		t.Fatal(err)
	}
}

func openStore(t testing.TB, dir string) *cas.Store {
	t.Helper()
	st, err := cas.Open(dir, cas.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// allowAll lets every peer have every blob.
var allowAll = transfer.AuthorizerFunc(func(context.Context, peer.ID, string, string) error { return nil })

// randomBytes is n bytes of a seeded generator.
func randomBytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)})
	_, _ = r.Read(b)
	return b
}

// lab is a serving agent and a fetching one, connected.
type lab struct {
	srvHost, cliHost host.Host
	srvStore         *cas.Store
	srv              *transfer.Server
	cliDir           string
	cliStore         *cas.Store
	cli              *transfer.Client
}

func newLab(t *testing.T, auth transfer.Authorizer) *lab {
	t.Helper()
	l := &lab{srvHost: newHost(t), cliHost: newHost(t), cliDir: filepath.Join(t.TempDir(), "files")}
	connect(t, l.cliHost, l.srvHost)
	l.srvStore = openStore(t, filepath.Join(t.TempDir(), "files"))
	l.serve(t, auth)
	l.cliStore = openStore(t, l.cliDir)
	l.cli = transfer.NewClient(l.cliHost, l.cliStore, transfer.Config{})
	return l
}

func (l *lab) serve(t *testing.T, auth transfer.Authorizer) {
	t.Helper()
	srv, err := transfer.Serve(l.srvHost, l.srvStore, auth, transfer.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	l.srv = srv
}

// restartClient opens the fetching agent's store again, as after a restart.
func (l *lab) restartClient(t *testing.T) {
	l.cliStore = openStore(t, l.cliDir)
	l.cli = transfer.NewClient(l.cliHost, l.cliStore, transfer.Config{})
}

// produce puts body into the serving agent's store and returns its entry.
func (l *lab) produce(t *testing.T, body []byte) files.Entry {
	t.Helper()
	sum, err := l.srvStore.Put(context.Background(), "producer", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return sum.Entry("out/blob", 0o644)
}

func (l *lab) fetch(ctx context.Context, e files.Entry, progress func(done, total int64)) error {
	return l.cli.Fetch(ctx, l.srvHost.ID(), e, "consumer", progress)
}

// received reads the fetched blob back.
func (l *lab) received(t *testing.T, e files.Entry) []byte {
	t.Helper()
	b, err := os.ReadFile(l.cliStore.Path(e.SHA256))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// partsLeft lists what the fetching agent's store holds besides empty
// folders: parts and blobs.
func (l *lab) written(t *testing.T) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(l.cliDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// cutAt returns a context and a progress callback that cancels it once
// at least at bytes are verified, and the bytes verified when it did.
func cutAt(at int64) (context.Context, func(done, total int64), *int64) {
	ctx, cancel := context.WithCancel(context.Background())
	var verified int64
	return ctx, func(done, _ int64) {
		verified = done
		if done >= at {
			cancel()
		}
	}, &verified
}

func isCut(err error) bool { return errors.Is(err, context.Canceled) }

// servedWhenIdle waits until the server sends nothing more (a cut
// transfer's handler still writes until it sees the reset) and returns
// the bytes it served.
func (l *lab) servedWhenIdle(t *testing.T) int64 {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); l.srv.Stats().Active > 0; {
		if time.Now().After(deadline) {
			t.Fatal("the server still sends 10s after the cut")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return l.srv.Stats().BytesServed
}
