// Package testlog gives tests a logger for the components they start
// (agents, runners) whose output shows when it helps and costs little
// otherwise. With -v it streams to stderr at debug level. Otherwise it is
// kept in memory, at debug level, and the last lines are printed when the
// test fails, so a rare failure in CI explains itself without every
// passing test printing its logs. Benchmarks get a logger that discards
// everything: their figures must not include logging.
package testlog

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

// Lines is how many of the last lines a failed test prints.
const Lines = 300

// New returns t's logger. named sets the name the printed log goes under
// (an agent's peer ID, say) once it is known. Records of the components
// in quiet (their "component" attribute) are kept from info level up
// only: a chatty library's debug logs would fill the tail.
func New(t testing.TB, quiet ...string) (log *slog.Logger, named func(string)) {
	opts := &slog.HandlerOptions{Level: slog.LevelDebug}
	if _, bench := t.(*testing.B); bench {
		return slog.New(slog.NewTextHandler(io.Discard, nil)), func(string) {}
	}
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, opts)), func(string) {}
	}
	tail, name := &tail{}, "(unnamed)"
	// Registered before the caller's stop of what it logs for, so it runs
	// after it and the printed log includes the shutdown.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s, the last lines of its log:\n%s", name, tail.last(Lines))
		}
	})
	h := quieter{Handler: slog.NewTextHandler(tail, opts), components: quiet}
	return slog.New(h), func(s string) { name = s }
}

// tail keeps the end of a log in memory.
type tail struct {
	mu  sync.Mutex
	buf bytes.Buffer // guarded by mu
}

// tailMax bounds the memory: past it, the older half is dropped.
const tailMax = 4 << 20

func (l *tail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf.Len()+len(p) > tailMax {
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
func (l *tail) last(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := strings.Split(strings.TrimRight(l.buf.String(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// quieter passes the records of its components from info level up only.
type quieter struct {
	slog.Handler
	components []string
	quiet      bool // this handler's records carry one of components
}

func (h quieter) Enabled(ctx context.Context, l slog.Level) bool {
	return (!h.quiet || l >= slog.LevelInfo) && h.Handler.Enabled(ctx, l)
}

func (h quieter) WithAttrs(as []slog.Attr) slog.Handler {
	q := h.quiet
	for _, a := range as {
		for _, c := range h.components {
			q = q || (a.Key == "component" && a.Value.String() == c)
		}
	}
	return quieter{h.Handler.WithAttrs(as), h.components, q}
}

func (h quieter) WithGroup(name string) slog.Handler {
	return quieter{h.Handler.WithGroup(name), h.components, h.quiet}
}
