package embedredis

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestStartFailureQuotesLog: a redis-server that dies at start gives an error
// that says so and quotes its log.
func TestStartFailureQuotesLog(t *testing.T) {
	bin := t.TempDir()
	script := "#!/bin/sh\n" +
		"if [ \"$1\" = --version ]; then echo 'Redis server v=7.2.0 sha=0'; exit 0; fi\n" +
		"echo 'FATAL: cannot frobnicate' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "redis-server"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	_, err := Start(context.Background(), Options{DataDir: t.TempDir()})
	if err == nil {
		t.Fatal("Start succeeded with a redis-server that exits at once")
	}
	for _, want := range []string{"embedredis.Start", "exited during start", "cannot frobnicate"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestSocketPathTooLong(t *testing.T) {
	needRedisServer(t)
	dir := filepath.Join(t.TempDir(), strings.Repeat("d", 100))
	_, err := Start(context.Background(), Options{DataDir: dir})
	if err == nil || !strings.Contains(err.Error(), "shorter data dir") {
		t.Fatalf("Start with a long data dir: %v, want a socket path error", err)
	}
}

func TestNoRedisServerFallsBackInProcess(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	logs := &syncBuffer{}
	s := startT(t, Options{DataDir: t.TempDir(), Log: slogTo(logs)})
	if s.Kind() != KindInProcess || s.Persistent() {
		t.Fatalf("Kind %q Persistent %v, want in-process and false", s.Kind(), s.Persistent())
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "NO PERSISTENCE") {
		t.Fatalf("no loud warning about persistence; logs:\n%s", logs)
	}
}

func TestInProcessNeedsPassword(t *testing.T) {
	s := startT(t, Options{ForceInProcess: true})
	if !strings.HasPrefix(s.URL(), "redis://") {
		t.Fatalf("URL %q", s.URL())
	}
	o, err := redis.ParseURL(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	o.Password = ""
	c := redis.NewClient(o)
	defer c.Close()
	if err := c.Set(ctxT(t), "k", "v", 0).Err(); err == nil {
		t.Fatal("in-process server accepted a write without its password")
	}
	if err := clientDB(t, s, 0).Set(ctxT(t), "k", "v", 0).Err(); err != nil {
		t.Fatalf("write with the URL's password: %v", err)
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string][3]int{
		"Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64": {7, 0, 1},
		"Redis server v=6.2.6 sha=0":                                         {6, 2, 1},
		"Redis server v=5.0.7 sha=0":                                         {5, 0, 1},
		"something else":                                                     {0, 0, 0},
	} {
		major, minor, ok := parseVersion(in)
		if major != want[0] || minor != want[1] || ok != (want[2] == 1) {
			t.Errorf("parseVersion(%q) = %d, %d, %v; want %v", in, major, minor, ok, want)
		}
	}
}

func TestOldRedisServerIsRefused(t *testing.T) {
	bin := t.TempDir()
	script := "#!/bin/sh\necho 'Redis server v=5.0.7 sha=00000000:0 malloc=libc bits=64'\n"
	if err := os.WriteFile(filepath.Join(bin, "redis-server"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	_, err := Start(context.Background(), Options{DataDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "needs 6.2 or newer") {
		t.Fatalf("Start with redis-server 5.0.7: %v, want a version error", err)
	}
}
