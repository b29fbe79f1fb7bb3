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
//	HYPHAE_FILES_BENCH_RAW_SYNC=1 ... (the raw copy fsyncs its file too)
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
// named) beside, in the same loop, a raw libp2p stream copy between the
// same two hosts (the same blob file, read and written through a buffer,
// no hashing, no sync). It reports MB/s of each, their ratio, and the
// process's peak RSS growth during each (both hosts are in it).
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
	cliStore := openStore(b, filepath.Join(b.TempDir(), "files"))
	cli := transfer.NewClient(cliHost, cliStore, transfer.Config{})
	rawOut := filepath.Join(b.TempDir(), "raw.out")

	var ours, raw, oursCPU, rawCPU time.Duration
	var oursRSS, rawRSS int64
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, c, rss := measure(b, func() error {
			return cli.Fetch(context.Background(), srvHost.ID(), e, "bench", nil)
		})
		ours, oursCPU = ours+d, oursCPU+c
		oursRSS = max(oursRSS, rss)
		b.StopTimer()
		_ = cliStore.Release("bench")
		_, _ = cliStore.Prune()
		d, c, rss = measure(b, func() error { return rawCopy(cliHost, srvHost, rawOut) })
		raw, rawCPU = raw+d, rawCPU+c
		rawRSS = max(rawRSS, rss)
		_ = os.Remove(rawOut)
		b.StartTimer()
	}
	b.StopTimer()
	mb := func(d time.Duration) float64 { return float64(size) * float64(b.N) / d.Seconds() / 1e6 }
	b.ReportMetric(mb(ours), "MB/s")
	b.ReportMetric(mb(raw), "raw-MB/s")
	b.ReportMetric(mb(ours)/mb(raw), "ratio")
	// CPU time of the process (both hosts) per byte: steadier than MB/s
	// on a machine other work shares.
	perByte := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(size*int64(b.N)) }
	b.ReportMetric(perByte(oursCPU), "cpu-ns/B")
	b.ReportMetric(perByte(rawCPU), "raw-cpu-ns/B")
	b.ReportMetric(float64(oursRSS)/(1<<20), "rss-growth-MiB")
	b.ReportMetric(float64(rawRSS)/(1<<20), "raw-rss-growth-MiB")
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
// HYPHAE_FILES_BENCH_RAW_SYNC is set (a baseline as durable as Fetch).
func rawCopy(cli, srv host.Host, out string) error {
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
	if err == nil && os.Getenv("HYPHAE_FILES_BENCH_RAW_SYNC") != "" {
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
