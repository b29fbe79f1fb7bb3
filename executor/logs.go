package executor

import (
	"bufio"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// Log batching: lines are sent to Redis at most every logFlushEvery, in
// batches of at most logBatch lines, so a chatty job costs few round trips.
const (
	logFlushEvery = 20 * time.Millisecond
	logBatch      = 500
	outputLog     = "output.log"
)

// logSink keeps a job's output lines: all of them in <dir>/output.log
// (created on the first line, so a silent job costs no file), and
// up to the cap in the Redis list logs:<job key> (announced on its channel
// so `job logs -f` followers wake). ctxID 0 (hero jobs) keeps the file only.
type logSink struct {
	st    *store.Store
	log   *slog.Logger
	ctxID uint64
	key   string
	dir   string
	cap   int

	mu      sync.Mutex
	file    *os.File      // guarded by mu
	buf     *bufio.Writer // guarded by mu
	fileErr bool          // output.log could not be opened; guarded by mu
	pending []string      // guarded by mu
	sent    int           // lines handed to Redis; guarded by mu
	tail    []string      // the last EndingLogLines of the Redis list; guarded by mu
	running bool          // a flusher goroutine exists; guarded by mu

	kick chan struct{}
	quit chan struct{}
	wg   sync.WaitGroup
}

func (r *Runner) newLogSink(ctxID uint64, key, dir string) *logSink {
	return &logSink{st: r.st, log: r.log, ctxID: ctxID, key: key, dir: dir, cap: r.cfg.LogLines,
		kick: make(chan struct{}, 1), quit: make(chan struct{})}
}

// Line records one output line. Safe for concurrent use.
func (l *logSink) Line(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf == nil && !l.fileErr {
		l.openFile()
	}
	if l.buf != nil {
		l.buf.WriteString(s)
		l.buf.WriteByte('\n')
	}
	if l.ctxID == 0 || l.sent > l.cap {
		return // hero job, or the Redis list is full (capped marker sent)
	}
	l.pending = append(l.pending, s)
	l.sent++
	if l.sent > l.cap {
		l.keepTail(store.LogCapMarker) // what AppendLogs ends the list with
	} else {
		l.keepTail(s)
	}
	if !l.running {
		l.running = true
		l.wg.Add(1)
		go l.flushLoop()
	}
	signal(l.kick)
}

// keepTail remembers s among the last EndingLogLines lines; mu is held.
func (l *logSink) keepTail(s string) {
	if len(l.tail) == EndingLogLines {
		copy(l.tail, l.tail[1:])
		l.tail = l.tail[:EndingLogLines-1]
	}
	l.tail = append(l.tail, s)
}

// Tail returns the last EndingLogLines lines of the job's Redis log, as
// it will be once every line recorded so far is flushed.
func (l *logSink) Tail() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.tail...)
}

// openFile opens output.log for appending; mu is held.
func (l *logSink) openFile() {
	f, err := os.OpenFile(filepath.Join(l.dir, outputLog), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		l.fileErr = true
		l.log.Warn("executor: output.log", "dir", l.dir, "err", err)
		return
	}
	l.file, l.buf = f, bufio.NewWriterSize(f, 16<<10)
}

func (l *logSink) flushLoop() {
	defer l.wg.Done()
	for {
		select {
		case <-l.quit:
			return
		case <-l.kick:
		}
		l.flush()
		t := time.NewTimer(logFlushEvery) // let the next batch gather
		select {
		case <-l.quit:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// flush sends the pending lines to Redis and the file buffer to disk.
func (l *logSink) flush() {
	l.mu.Lock()
	lines := l.pending
	l.pending = nil
	if l.buf != nil {
		_ = l.buf.Flush()
	}
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	for len(lines) > 0 {
		n := min(len(lines), logBatch)
		if err := l.st.AppendLogs(ctx, l.ctxID, l.key, lines[:n], l.cap); err != nil {
			l.log.Warn("executor: job log", "job", l.key, "err", err)
			return
		}
		lines = lines[n:]
	}
}

// Close flushes everything and closes the file; every line recorded before
// is in Redis when it returns.
func (l *logSink) Close() {
	close(l.quit)
	l.wg.Wait()
	l.flush()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file != nil {
		l.file.Close()
		l.file, l.buf = nil, nil
	}
}
