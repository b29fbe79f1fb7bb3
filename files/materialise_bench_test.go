package files_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/files/cas"
)

// benchEnv is a size from the environment, def without it.
func benchEnv(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// BenchmarkMaterialise places one blob of HYPHAE_FILES_BENCH_MB (default
// 64) MiB from a store into a job's in/, beside, in the same loop, a
// user-space copy of the same blob file through a 256 KiB buffer (what
// the kernel's copy offload saves) into the same file system:
//
//	HYPHAE_FILES_BENCH_MB=1024 go test -run '^$' -bench 'Materialise$' -benchtime 3x ./files/
func BenchmarkMaterialise(b *testing.B) {
	size := int64(benchEnv("HYPHAE_FILES_BENCH_MB", 64)) << 20
	st, err := cas.Open(filepath.Join(b.TempDir(), "files"), cas.Options{})
	if err != nil {
		b.Fatal(err)
	}
	sum, err := st.Put(context.Background(), "p", io.LimitReader(rand.NewChaCha8([32]byte{40}), size))
	if err != nil {
		b.Fatal(err)
	}
	es := []files.Entry{sum.Entry("big.bin", 0o644)}
	var ours, user time.Duration
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		dir := b.TempDir()
		t0 := time.Now()
		if _, err := files.Materialise(context.Background(), dir, "p", es, files.Limits{}, st.OpenFile); err != nil {
			b.Fatal(err)
		}
		ours += time.Since(t0)
		b.StopTimer()
		t0 = time.Now()
		userCopy(b, st.Path(es[0].SHA256), filepath.Join(dir, "user.bin"))
		user += time.Since(t0)
		b.StartTimer()
	}
	b.StopTimer()
	mbs := func(d time.Duration) float64 { return float64(size) * float64(b.N) / d.Seconds() / 1e6 }
	b.ReportMetric(mbs(ours), "materialise-MB/s")
	b.ReportMetric(mbs(user), "usercopy-MB/s")
}

// BenchmarkMaterialiseSmall places HYPHAE_FILES_BENCH_SMALL (default
// 1000) files of 1 to 8 KiB in nested folders.
func BenchmarkMaterialiseSmall(b *testing.B) {
	n := benchEnv("HYPHAE_FILES_BENCH_SMALL", 1000)
	st, err := cas.Open(filepath.Join(b.TempDir(), "files"), cas.Options{})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(40, 40))
	es := make([]files.Entry, 0, n)
	for i := range n {
		body := make([]byte, 1024+r.IntN(7*1024))
		for k := range body {
			body[k] = byte(r.Uint32())
		}
		sum, err := st.Put(context.Background(), "p", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		es = append(es, sum.Entry(fmt.Sprintf("obj/m%02d/s%02d/f%05d.o", i%20, (i/20)%25, i), 0o644))
	}
	b.ResetTimer()
	for range b.N {
		if _, err := files.Materialise(context.Background(), b.TempDir(), "p", es, files.Limits{}, st.OpenFile); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "files/s")
}

// userCopy copies src to dst through a buffer in this process, the
// wrappers hiding the files from io.Copy's kernel offload.
func userCopy(b *testing.B, src, dst string) {
	in, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	_, err = io.CopyBuffer(struct{ io.Writer }{out}, struct{ io.Reader }{in}, make([]byte, 256<<10))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
}
