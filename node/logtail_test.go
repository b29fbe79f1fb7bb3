package node_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
)

// logTail keeps the end of an agent's log in memory, so that a test that
// fails can show what its agents said (a flake in CI explains itself)
// without every passing test printing it.
type logTail struct {
	mu  sync.Mutex
	buf bytes.Buffer // guarded by mu
}

// logTailMax bounds the memory: past it, the older half is dropped.
const logTailMax = 4 << 20

func (l *logTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf.Len()+len(p) > logTailMax {
		old := l.buf.Bytes()[l.buf.Len()/2:]
		if i := bytes.IndexByte(old, '\n'); i >= 0 {
			old = old[i+1:]
		}
		kept := append([]byte("[…]\n"), old...)
		l.buf.Reset()
		l.buf.Write(kept)
	}
	return l.buf.Write(p)
}

// last returns the log's last n lines.
func (l *logTail) last(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := strings.Split(strings.TrimRight(l.buf.String(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// agentLogger is a test agent's logger; call named with the agent's name
// (its peer ID) once known. Benchmarks get none (their figures must not
// include logging); with -v every agent logs to stderr at debug level;
// otherwise the log is kept at debug level and its last lines are printed
// if the test fails (registered before the agent's stop, so it runs after
// it and includes the shutdown).
func agentLogger(t testing.TB) (log *slog.Logger, named func(string)) {
	opts := &slog.HandlerOptions{Level: slog.LevelDebug}
	switch {
	case isBenchmark(t):
		return slog.New(slog.NewTextHandler(io.Discard, nil)), func(string) {}
	case testing.Verbose():
		return slog.New(slog.NewTextHandler(os.Stderr, opts)), func(string) {}
	}
	tail, name := &logTail{}, "(not started)"
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("agent %s, the last lines of its log:\n%s", name, tail.last(300))
		}
	})
	h := quietPubsub{Handler: slog.NewTextHandler(tail, opts)}
	return slog.New(h), func(s string) { name = s }
}

// quietPubsub passes gossipsub's records (component=pubsub) from info
// level up only: at debug level it logs every RPC, which would fill the
// tail and cost every test CPU.
type quietPubsub struct {
	slog.Handler
	quiet bool
}

func (h quietPubsub) Enabled(ctx context.Context, l slog.Level) bool {
	return (!h.quiet || l >= slog.LevelInfo) && h.Handler.Enabled(ctx, l)
}

func (h quietPubsub) WithAttrs(as []slog.Attr) slog.Handler {
	q := h.quiet
	for _, a := range as {
		q = q || (a.Key == "component" && a.Value.String() == "pubsub")
	}
	return quietPubsub{h.Handler.WithAttrs(as), q}
}

func (h quietPubsub) WithGroup(name string) slog.Handler {
	return quietPubsub{h.Handler.WithGroup(name), h.quiet}
}

func isBenchmark(t testing.TB) bool {
	_, ok := t.(*testing.B)
	return ok
}
