package transfer_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/files/transfer"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
)

const tarProtocol = "/hyphae-bench/tar/1.0.0"

// BenchmarkSmallFilesVsTar moves a build tree of HYPHAE_FILES_BENCH_SMALL
// (500 by default) files of 1 to 4 KiB: Fetch of every entry (as many at
// once as the client allows) and Materialise into a folder, beside `tar
// c | tar x` over a raw libp2p stream between the same two hosts (the
// shape of `tar | ssh`, on the same transport).
func BenchmarkSmallFilesVsTar(b *testing.B) {
	n := envInt("HYPHAE_FILES_BENCH_SMALL", 500)
	srvHost, cliHost := newHost(b), newHost(b)
	connect(b, cliHost, srvHost)
	src := b.TempDir()
	var total int64
	for i := range n {
		body := randomBytes(1024+(i*37)%3072, uint64(i))
		total += int64(len(body))
		write(b, src, fmt.Sprintf("d%02d/f%05d.o", i%50, i), body)
	}
	srvStore := openStore(b, filepath.Join(b.TempDir(), "files"))
	entries, err := files.Build(context.Background(), src, []string{"."}, files.Limits{}, "producer", srvStore)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := transfer.Serve(srvHost, srvStore, allowAll, transfer.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	serveTar(srvHost, src)

	var ours, tar time.Duration
	b.SetBytes(total)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		fetchAll(b, cliHost, srvHost, entries)
		ours += time.Since(t0)
		b.StopTimer()
		t0 = time.Now()
		tarCopy(b, cliHost, srvHost, b.TempDir())
		tar += time.Since(t0)
		b.StartTimer()
	}
	b.StopTimer()
	fps := func(d time.Duration) float64 { return float64(n*b.N) / d.Seconds() }
	b.ReportMetric(fps(ours), "files/s")
	b.ReportMetric(fps(tar), "tar-files/s")
	b.ReportMetric(fps(ours)/fps(tar), "ratio")
}

func write(b *testing.B, dir, rel string, body []byte) {
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, body, 0o644); err != nil {
		b.Fatal(err)
	}
}

// fetchAll fetches entries into a new store, 8 goroutines at a time, and
// materialises them into a new folder.
func fetchAll(b *testing.B, cliHost, srvHost host.Host, entries []files.Entry) {
	st := openStore(b, filepath.Join(b.TempDir(), "files"))
	cli := transfer.NewClient(cliHost, st, transfer.Config{MaxParallel: 8})
	work := make(chan files.Entry)
	var wg sync.WaitGroup
	var failed error
	var mu sync.Mutex
	for range 8 {
		wg.Go(func() {
			for e := range work {
				if err := cli.Fetch(context.Background(), srvHost.ID(), e, "consumer", nil); err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
				}
			}
		})
	}
	for _, e := range entries {
		work <- e
	}
	close(work)
	wg.Wait()
	if failed != nil {
		b.Fatal(failed)
	}
	if _, err := files.Materialise(context.Background(), b.TempDir(), "producer", entries, files.Limits{}, st.OpenFile); err != nil {
		b.Fatal(err)
	}
}

// serveTar answers tarProtocol with `tar -c` of dir.
func serveTar(h host.Host, dir string) {
	h.SetStreamHandler(tarProtocol, func(s network.Stream) {
		defer s.Close()
		cmd := exec.Command("tar", "-cf", "-", "-C", dir, ".")
		cmd.Stdout = s
		if err := cmd.Run(); err != nil {
			_ = s.Reset()
		}
	})
}

// tarCopy pipes tarProtocol's stream into `tar -x` in dst.
func tarCopy(b *testing.B, cli, srv host.Host, dst string) {
	s, err := cli.NewStream(context.Background(), srv.ID(), tarProtocol)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	_ = s.CloseWrite()
	cmd := exec.Command("tar", "-xf", "-", "-C", dst)
	cmd.Stdin = io.Reader(s)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("tar -x: %v: %s", err, out)
	}
}
