package executor

import (
	"context"
	"log/slog"
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

// logSink keeps a job's output lines: in <dir>/output.log (created on the
// first line, so a silent job costs no file; capped at OutputBytes,
// logfile.go), and in the Redis list logs:<job key> (announced on its
// channel so `job logs -f` followers wake), capped at LogLines lines and
// LogBytes bytes as logcap.go says: the first half of either cap is sent
// as it comes, the newest lines past it are held here and sent, after a
// marker line when some were left out, when the job ends (Close). ctxID 0
// (hero jobs) keeps the file only.
type logSink struct {
	st      Store
	log     *slog.Logger
	ctxID   uint64
	key     string
	dir     string
	cap     int   // lines in Redis
	capB    int   // bytes of lines in Redis
	fileCap int64 // bytes of output.log

	mu      sync.Mutex
	file    *capFile        // guarded by mu
	fileErr bool            // output.log could not be opened; guarded by mu
	pending []store.LogLine // guarded by mu
	sent    int             // lines handed to Redis as the head; guarded by mu
	sentB   int             // their bytes; guarded by mu
	held    *lineRing       // past the head: the newest lines, sent at Close; guarded by mu
	tail    []string        // the last EndingLogLines of the head; guarded by mu
	running bool            // a flusher goroutine exists; guarded by mu

	kick chan struct{}
	quit chan struct{}
	wg   sync.WaitGroup
}

func (r *Runner) newLogSink(ctxID uint64, key, dir string) *logSink {
	return &logSink{st: r.st, log: r.log, ctxID: ctxID, key: key, dir: dir,
		cap: r.cfg.LogLines, capB: r.cfg.LogBytes, fileCap: r.cfg.OutputBytes,
		kick: make(chan struct{}, 1), quit: make(chan struct{})}
}

// Line records one line of the agent's own (a "[hyphae] …" note). Safe
// for concurrent use.
func (l *logSink) Line(s string) { l.lineOn(s, store.LogAgent) }

// Stdout records one line the job wrote on stdout.
func (l *logSink) Stdout(s string) { l.lineOn(s, store.LogStdout) }

// Stderr records one line the job wrote on stderr.
func (l *logSink) Stderr(s string) { l.lineOn(s, store.LogStderr) }

// lineOn records one output line of stream (store.LogStdout, …), with the
// time it came: both go to Redis beside the line (store.AppendLogLines).
func (l *logSink) lineOn(s, stream string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file == nil && !l.fileErr {
		l.openFile()
	}
	if l.file != nil {
		l.file.line(s)
	}
	if l.ctxID == 0 {
		return // hero job: the file only
	}
	if l.held == nil && l.sent < l.cap/2 && l.sentB+lineBytes(s) <= l.capB/2 {
		l.pending = append(l.pending, store.NewLogLine(s, stream))
		l.sent++
		l.sentB += lineBytes(s)
		l.keepTail(s)
		if !l.running {
			l.running = true
			l.wg.Add(1)
			go l.flushLoop()
		}
		signal(l.kick)
		return
	}
	if l.held == nil { // past the head: what is left of the cap holds the newest lines
		l.held = &lineRing{maxLines: l.cap - l.sent, maxBytes: l.capB - l.sentB}
	}
	l.held.pushMeta(s, store.NewLogLine(s, stream).Meta())
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
// it will be once every line recorded so far is flushed and Close has
// written the held lines.
func (l *logSink) Tail() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]string(nil), l.tail...)
	if l.held != nil {
		out = append(out, l.held.peek()...)
	}
	return out[max(0, len(out)-EndingLogLines):]
}

// openFile opens output.log for appending; mu is held.
func (l *logSink) openFile() {
	f, err := openCapFile(l.dir, l.fileCap)
	if err != nil {
		l.fileErr = true
		l.log.Warn("executor: output.log", "dir", l.dir, "err", err)
		return
	}
	l.file = f
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
	if l.file != nil {
		l.file.flush()
	}
	l.mu.Unlock()
	l.send(lines)
}

// send appends lines to the Redis log in batches. Its cap there is one
// line over LogLines, room for the marker, so the store never adds a
// marker of its own.
func (l *logSink) send(lines []store.LogLine) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	for len(lines) > 0 {
		n := min(len(lines), logBatch)
		if err := l.st.Logs.AppendLogLines(ctx, l.ctxID, l.key, lines[:n], l.cap+1); err != nil {
			l.log.Warn("executor: job log", "job", l.key, "err", err)
			return
		}
		lines = lines[n:]
	}
}

// Close flushes everything, writes the held lines after the head and
// closes the file; every line recorded before is in Redis when it
// returns.
func (l *logSink) Close() {
	close(l.quit)
	l.wg.Wait()
	l.flush()
	l.mu.Lock()
	var held []store.LogLine
	if l.held != nil {
		texts, metas := l.held.drainMeta(store.NewLogLine("", store.LogAgent).Meta())
		held = store.JoinLogMeta(texts, metas)
	}
	if l.file != nil {
		if err := l.file.close(); err != nil {
			l.log.Warn("executor: output.log", "dir", l.dir, "err", err)
		}
		l.file = nil
	}
	l.mu.Unlock()
	l.send(held)
}
