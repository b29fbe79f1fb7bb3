package embedredis

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clearLeftover makes sure nothing serves c.sock before a new child starts.
// Called with the data dir's lock held, so a redis-server found here belongs
// to no running agent: it is shut down gracefully (see the package doc).
// Stale socket and pid files are removed.
func clearLeftover(ctx context.Context, c *child, log *slog.Logger) error {
	pid := readPidFile(c.pidPath)
	_, answers := ping(ctx, c.sock)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("probe for a leftover redis-server: %w", err)
	}
	if answers || isOurRedis(pid, c.sock) {
		log.Warn("embedredis: a redis-server left by an earlier agent still serves "+
			"this data dir; shutting it down before starting a new one",
			"pid", pid, "socket", c.sock, "answers_ping", answers)
		if err := stopLeftover(ctx, c.sock, pid, answers); err != nil {
			return err
		}
	}
	for _, p := range []string{c.sock, c.pidPath} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("remove stale %s: %w", p, err)
		}
	}
	return nil
}

// stopLeftover asks a leftover to stop (SHUTDOWN, else SIGTERM) and kills it
// if it is still there after shutdownTimeout.
func stopLeftover(ctx context.Context, sock string, pid int, answers bool) error {
	if answers {
		_, _ = command(ctx, sock, "SHUTDOWN")
	} else {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	if waitGone(ctx, sock, pid, shutdownTimeout) {
		return nil
	}
	if isOurRedis(pid, sock) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		if waitGone(ctx, sock, pid, killWait) {
			return nil
		}
	}
	return fmt.Errorf("a leftover redis-server (pid %d, 0 = unknown) still serves %s "+
		"after SHUTDOWN; stop it by hand", pid, sock)
}

// waitGone polls until nothing answers on sock and pid is no redis-server of
// ours, or until d or ctx runs out; it reports whether the leftover is gone.
func waitGone(ctx context.Context, sock string, pid int, d time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for {
		if _, ok := ping(ctx, sock); !ok && !isOurRedis(pid, sock) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(pollInterval):
		}
	}
}

// readPidFile returns the pid in path, or 0.
func readPidFile(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
