package embedredis

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func startChildT(t *testing.T, dataDir string) *Server {
	t.Helper()
	needRedisServer(t)
	s := startT(t, Options{DataDir: dataDir, Log: testLog(t)})
	if s.Kind() != KindRedisServer || !s.Persistent() {
		t.Fatalf("Kind %q Persistent %v, want redis-server and true", s.Kind(), s.Persistent())
	}
	return s
}

func TestChildPersistsAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	s := startChildT(t, dir)
	ctx := ctxT(t)
	c := clientDB(t, s, 7)
	c.HSet(ctx, "job:1:1", "status", "finished")
	c.LPush(ctx, "queue:sh", "job:1:2")
	shutdownT(t, s)

	s2 := startChildT(t, dir)
	c2 := clientDB(t, s2, 7)
	if got := c2.HGet(ctx, "job:1:1", "status").Val(); got != "finished" {
		t.Fatalf("after restart job status = %q, want finished (AOF lost?)", got)
	}
	if got := c2.RPop(ctx, "queue:sh").Val(); got != "job:1:2" {
		t.Fatalf("after restart queue head = %q", got)
	}
}

func TestChildSocketIsPrivateAndInDataDir(t *testing.T) {
	dir := t.TempDir()
	s := startChildT(t, dir)
	sock, ok := strings.CutPrefix(s.URL(), "unix://")
	if !ok || sock != filepath.Join(dir, "redis", "redis.sock") {
		t.Fatalf("URL %q, want unix://%s/redis/redis.sock", s.URL(), dir)
	}
	for _, p := range []string{sock, filepath.Dir(sock)} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s has mode %v, want no group/other access", p, perm)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "redis", "appendonlydir")); err != nil {
		t.Errorf("no AOF in the data dir: %v", err)
	}
}

func TestShutdownTwice(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			s := startKind(t, k)
			for i := range 2 {
				if err := s.Shutdown(context.Background()); err != nil {
					t.Fatalf("Shutdown #%d: %v", i+1, err)
				}
			}
			select {
			case <-s.Done():
			default:
				t.Fatal("Done not closed after Shutdown")
			}
			if err := s.Err(); err != nil {
				t.Fatalf("Err after Shutdown = %v, want nil", err)
			}
		})
	}
}

func TestSecondStartOnSameDataDirFails(t *testing.T) {
	dir := t.TempDir()
	s := startChildT(t, dir)
	_, err := Start(context.Background(), Options{DataDir: dir})
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second Start: %v, want a data-dir-in-use error", err)
	}
	if err := clientDB(t, s, 0).Ping(ctxT(t)).Err(); err != nil {
		t.Fatalf("first server hurt by the second Start: %v", err)
	}
	shutdownT(t, s)
	startChildT(t, dir) // free again
}
