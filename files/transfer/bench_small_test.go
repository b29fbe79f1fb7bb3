package transfer_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/files/transfer"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
)

const tarProtocol = "/hyphae-bench/tar/1.0.0"

// BenchmarkSmallFilesVsTar moves a build tree of HYPHAE_FILES_BENCH_SMALL
// (500 by default) files of 1 to 4 KiB: FetchAll of the entries and
// Materialise into a folder, beside `tar c | tar x` over a raw libp2p
// stream between the same two hosts (the shape of `tar | ssh`, on the
// same transport), and the same followed by `sync -f` of the folder
// (tarsync: durable, as the store is).
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

	var ours, tar, tarSync time.Duration
	b.SetBytes(total)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		fetchAll(b, cliHost, srvHost, entries)
		ours += time.Since(t0)
		b.StopTimer()
		t0 = time.Now()
		tarCopy(b, cliHost, srvHost, b.TempDir(), false)
		tar += time.Since(t0)
		t0 = time.Now()
		tarCopy(b, cliHost, srvHost, b.TempDir(), true)
		tarSync += time.Since(t0)
		b.StartTimer()
	}
	b.StopTimer()
	fps := func(d time.Duration) float64 { return float64(n*b.N) / d.Seconds() }
	b.ReportMetric(fps(ours), "files/s")
	b.ReportMetric(fps(tar), "tar-files/s")
	b.ReportMetric(fps(ours)/fps(tar), "ratio")
	b.ReportMetric(fps(tarSync), "tarsync-files/s")
	b.ReportMetric(fps(ours)/fps(tarSync), "ratio-sync")
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

// fetchAll fetches entries into a new store with one FetchAll (batches
// on one stream each) and materialises them into a new folder.
func fetchAll(b *testing.B, cliHost, srvHost host.Host, entries []files.Entry) {
	st := openStore(b, filepath.Join(b.TempDir(), "files"))
	cli := transfer.NewClient(cliHost, st, transfer.Config{})
	if err := cli.FetchAll(context.Background(), srvHost.ID(), entries, "consumer", nil); err != nil {
		b.Fatal(err)
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

// tarCopy pipes tarProtocol's stream into `tar -x` in dst, then syncs
// dst's file system when sync is set.
func tarCopy(b *testing.B, cli, srv host.Host, dst string, sync bool) {
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
	if sync {
		if out, err := exec.Command("sync", "-f", dst).CombinedOutput(); err != nil {
			b.Fatalf("sync -f: %v: %s", err, out)
		}
	}
}
