package transfer_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/files/cas"
	"github.com/hyphae-run/hyphae/files/transfer"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
)

// The benchmarks' sizes come from the environment, so that CI stays fast
// and a measurement can ask for the sizes:
//
//	HYPHAE_FILES_BENCH_MB=1024 go test -run XXX -bench FetchVsRaw -benchtime 3x ./files/transfer/
//	HYPHAE_FILES_BENCH_SMALL=10000 go test -run XXX -bench SmallFiles -benchtime 1x ./files/transfer/
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

const rawProtocol = "/hyphae-bench/raw/1.0.0"

// BenchmarkFetchVsRaw moves one file from one host to another on loopback
// with Fetch (verified per chunk and whole, written to a part, synced,
// named) beside, in the same loop, two raw libp2p stream copies between
// the same two hosts of the same blob file, read and written through a
// buffer to a file on the same file system as the client's store, no
// hashing: "raw" leaves the bytes in the page cache, "rawsync" syncs
// them too (as durable as Fetch). The three take turns leading, so that
// none always inherits the page cache the one before it freed. It
// reports MB/s of each, the ratios, CPU per byte and the process's peak
// RSS growth during each (both hosts are in it).
func BenchmarkFetchVsRaw(b *testing.B) {
	size := int64(envInt("HYPHAE_FILES_BENCH_MB", 64)) << 20
	srvHost, cliHost := newHost(b), newHost(b)
	connect(b, cliHost, srvHost)
	srvStore := openStore(b, filepath.Join(b.TempDir(), "files"))
	e := putRandom(b, srvStore, size)
	srv, err := transfer.Serve(srvHost, srvStore, allowAll, transfer.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	serveRaw(srvHost, srvStore.Path(e.SHA256))
	cliDir := b.TempDir()
	cliStore := openStore(b, filepath.Join(cliDir, "files"))
	cli := transfer.NewClient(cliHost, cliStore, transfer.Config{})
	rawOut := filepath.Join(cliDir, "raw.out")
	sides := []*side{
		{name: "", run: func() error {
			err := cli.Fetch(context.Background(), srvHost.ID(), e, "bench", nil)
			_ = cliStore.Release("bench")
			_, _ = cliStore.Prune()
			return err
		}},
		{name: "raw-", run: func() error { return rawCopy(cliHost, srvHost, rawOut, false) }, after: func() { _ = os.Remove(rawOut) }},
		{name: "rawsync-", run: func() error { return rawCopy(cliHost, srvHost, rawOut, true) }, after: func() { _ = os.Remove(rawOut) }},
	}
	b.SetBytes(size)
	b.ResetTimer()
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		for k := range sides {
			sides[(i+k)%len(sides)].measure(b)
		}
	}
	total := float64(size) * float64(b.N)
	for _, s := range sides {
		s.report(b, total, sides[0])
	}
}

// side is one way of moving the file in BenchmarkFetchVsRaw and what it
// took.
type side struct {
	name    string
	run     func() error
	after   func() // untimed clean-up
	wall    time.Duration
	cpu     time.Duration
	rssPeak int64
}

func (s *side) measure(b *testing.B) {
	if s.name == "" { // ns/op is ours
		b.StartTimer()
		defer b.StopTimer()
	}
	d, c, rss := measure(b, s.run)
	s.wall, s.cpu, s.rssPeak = s.wall+d, s.cpu+c, max(s.rssPeak, rss)
	if s.after != nil {
		s.after()
	}
}

// report gives s's MB/s, CPU time of the process (both hosts) per byte,
// steadier than MB/s on a machine other work shares, and its peak RSS
// growth; for a baseline, ours over it as ratio (raw) or ratio-sync.
func (s *side) report(b *testing.B, total float64, ours *side) {
	mbs := func(x *side) float64 { return total / x.wall.Seconds() / 1e6 }
	b.ReportMetric(mbs(s), s.name+"MB/s")
	b.ReportMetric(float64(s.cpu.Nanoseconds())/total, s.name+"cpu-ns/B")
	b.ReportMetric(float64(s.rssPeak)/(1<<20), s.name+"rss-growth-MiB")
	switch s.name {
	case "raw-":
		b.ReportMetric(mbs(ours)/mbs(s), "ratio")
	case "rawsync-":
		b.ReportMetric(mbs(ours)/mbs(s), "ratio-sync")
	}
}

// putRandom puts size pseudo-random bytes into st, generated as they go.
func putRandom(b *testing.B, st *cas.Store, size int64) files.Entry {
	b.Helper()
	gen := rand.NewChaCha8([32]byte{42})
	sum, err := st.Put(context.Background(), "producer", io.LimitReader(gen, size))
	if err != nil {
		b.Fatal(err)
	}
	return sum.Entry("big.bin", 0o644)
}

// serveRaw answers rawProtocol with the bytes of path.
func serveRaw(h host.Host, path string) {
	h.SetStreamHandler(rawProtocol, func(s network.Stream) {
		defer s.Close()
		f, err := os.Open(path)
		if err != nil {
			_ = s.Reset()
			return
		}
		defer f.Close()
		if _, err := io.CopyBuffer(s, struct{ io.Reader }{f}, make([]byte, 256<<10)); err != nil {
			_ = s.Reset()
		}
	})
}

// rawCopy fetches rawProtocol's bytes into the file out, synced too when
// sync is set (a baseline as durable as Fetch).
func rawCopy(cli, srv host.Host, out string, sync bool) error {
	s, err := cli.NewStream(context.Background(), srv.ID(), rawProtocol)
	if err != nil {
		return err
	}
	defer s.Close()
	_ = s.CloseWrite()
	f, err := os.Create(out)
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

// measure times f and returns the process's CPU time during it and how
// far its peak RSS rose above its RSS before f (the peak is reset first
// through clear_refs).
func measure(b *testing.B, f func() error) (time.Duration, time.Duration, int64) {
	b.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	base := procStatus("VmRSS")
	c0, t0 := cpuTime(), time.Now()
	if err := f(); err != nil {
		b.Fatal(err)
	}
	d, c := time.Since(t0), cpuTime()-c0
	return d, c, procStatus("VmHWM") - base
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procStatus reads a field of /proc/self/status in bytes.
func procStatus(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			var kb int64
			_, _ = fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kb)
			return kb << 10
		}
	}
	return 0
}
