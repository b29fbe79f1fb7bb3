package e2e

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkFilesAgentsSmall: a job on a copies a build tree of
// HYPHAE_FILES_AGENT_SMALL (default 1000) files of 1 to 8 KiB in nested
// folders into its directory (outputs: [tree]); b fetches them
// (job.fetch, into its store), then `hyphae job get` writes them into a
// folder. Beside it in the same loop: `tar c` of the same tree piped
// through a loopback TCP socket into `tar x` (the shape of `tar | ssh`
// without ssh), and the same followed by `sync -f` (tarsync: durable, as
// the store is). Reports files/s of each and the ratios.
func BenchmarkFilesAgentsSmall(b *testing.B) {
	n := filesEnv("HYPHAE_FILES_AGENT_SMALL", 1000)
	p := startFilesPair(b)
	var fetchT, getT, tarT, tarSyncT time.Duration
	b.ResetTimer()
	b.StopTimer()
	for i := range b.N {
		src := buildTree(b, n, uint64(time.Now().UnixNano()))
		v := p.produce(b, fmt.Sprintf("cp -r %s tree", src), "tree")
		if len(v.Files) != n {
			b.Fatalf("the producer has %d files, want %d", len(v.Files), n)
		}
		sides := []func(){
			func() {
				b.StartTimer()
				d, _ := p.fetch(b, v.Key)
				t0 := time.Now()
				p.b.hy(b, "job", "get", "-c", "1", v.Key, "-o", b.TempDir())
				b.StopTimer()
				fetchT, getT = fetchT+d, getT+time.Since(t0)
			},
			func() { tarT += tarOverTCP(b, src, b.TempDir(), false) },
			func() { tarSyncT += tarOverTCP(b, src, b.TempDir(), true) },
		}
		for k := range sides {
			sides[(i+k)%len(sides)]()
		}
	}
	fps := func(d time.Duration) float64 { return float64(n*b.N) / d.Seconds() }
	b.ReportMetric(fps(fetchT), "fetch-files/s")
	b.ReportMetric(fps(fetchT+getT), "files/s")
	b.ReportMetric(fps(tarT), "tar-files/s")
	b.ReportMetric(fps(fetchT+getT)/fps(tarT), "ratio")
	b.ReportMetric(fps(fetchT)/fps(tarT), "ratio-fetch")
	b.ReportMetric(fps(tarSyncT), "tarsync-files/s")
	b.ReportMetric(fps(fetchT+getT)/fps(tarSyncT), "ratio-sync")
}

// buildTree writes n files of 1 to 8 KiB of seeded bytes under
// obj/mNN/sNN/ of a new folder and returns it.
func buildTree(b *testing.B, n int, seed uint64) string {
	b.Helper()
	dir := b.TempDir()
	r := rand.New(rand.NewPCG(seed, 40))
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("obj/m%02d/s%02d/f%05d.o", i%20, (i/20)%25, i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		body := make([]byte, 1024+r.IntN(7*1024))
		for k := range body {
			body[k] = byte(r.Uint32())
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// tarOverTCP is `tar -c` of src into a loopback TCP socket and `tar -x`
// of it into dst (then `sync -f` of dst when sync is set), timed.
func tarOverTCP(b *testing.B, src, dst string, sync bool) time.Duration {
	b.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	t0 := time.Now()
	sent := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			sent <- err
			return
		}
		defer c.Close()
		cmd := exec.Command("tar", "-cf", "-", "-C", src, ".")
		cmd.Stdout = c
		sent <- cmd.Run()
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	x := exec.Command("tar", "-xf", "-", "-C", dst)
	x.Stdin = c
	if out, err := x.CombinedOutput(); err != nil {
		b.Fatalf("tar -x: %v: %s", err, out)
	}
	if err := <-sent; err != nil {
		b.Fatalf("tar -c: %v", err)
	}
	if sync {
		if out, err := exec.Command("sync", "-f", dst).CombinedOutput(); err != nil {
			b.Fatalf("sync -f: %v: %s", err, out)
		}
	}
	return time.Since(t0)
}
