package executor

import (
	"fmt"
	"unicode/utf8"
)

// A job's log is capped in Redis (Config.LogLines, Config.LogBytes) and on
// disk (Config.OutputBytes) the same way: its first half is kept as it
// comes, then only the newest lines are held, and when the job ends a
// marker line saying how much was left out is written, followed by those
// newest lines. So a capped log keeps how the job started and how it
// ended (where its error is), and whatever fits the cap is never lost.
// Lines are only ever appended: a follower's position in the Redis list
// stays valid (job logs -f, and the origin of a remote job, read it by
// index).

// truncatedMarker is the line written where a capped log left lines out.
func truncatedMarker(lines, bytes int64) string {
	return fmt.Sprintf("[hyphae] log truncated: %d lines (%d bytes) left out here; the first and last lines are kept", lines, bytes)
}

// lineRing holds the newest lines within a budget of lines and bytes
// (lineBytes: a line counts with its newline, as in output.log), counting
// what it dropped.
type lineRing struct {
	maxLines, maxBytes int
	lines              []string
	metas              []string // each line's store.LogLine meta, at the same index
	start              int      // lines[start:] are held
	bytes              int
	droppedLines       int64
	droppedBytes       int64
}

// pushMeta adds s with its meta (store.LogLine.Meta), cut to the byte
// budget, dropping the oldest lines to stay within both budgets.
func (r *lineRing) pushMeta(s, meta string) {
	if lineBytes(s) > r.maxBytes {
		cut := cutUTF8(s, max(r.maxBytes-1, 0))
		r.droppedBytes += int64(len(s) - len(cut))
		s = cut
	}
	r.lines = append(r.lines, s)
	r.metas = append(r.metas, meta)
	r.bytes += lineBytes(s)
	for r.held() > r.maxLines || r.bytes > r.maxBytes {
		old := r.lines[r.start]
		r.lines[r.start], r.metas[r.start] = "", ""
		r.start++
		r.bytes -= lineBytes(old)
		r.droppedLines++
		r.droppedBytes += int64(lineBytes(old))
	}
	if r.start > len(r.lines)/2 && r.start > 64 { // reuse the array's front
		r.lines = append(r.lines[:0], r.lines[r.start:]...)
		r.metas = append(r.metas[:0], r.metas[r.start:]...)
		r.start = 0
	}
}

func (r *lineRing) held() int { return len(r.lines) - r.start }

// drainMeta returns what is to be written after the kept head: the marker
// when lines were left out, then the held lines; and each one's meta
// (markerMeta for the marker); and empties the ring.
func (r *lineRing) drainMeta(markerMeta string) ([]string, []string) {
	var out, metas []string
	if r.droppedLines > 0 || r.droppedBytes > 0 {
		out = append(out, truncatedMarker(r.droppedLines, r.droppedBytes))
		metas = append(metas, markerMeta)
	}
	out = append(out, r.lines[r.start:]...)
	metas = append(metas, r.metas[r.start:]...)
	r.lines, r.metas, r.start, r.bytes = nil, nil, 0, 0
	return out, metas
}

// peek is what drainMeta would return, leaving the ring as it is.
func (r *lineRing) peek() []string {
	var out []string
	if r.droppedLines > 0 || r.droppedBytes > 0 {
		out = append(out, truncatedMarker(r.droppedLines, r.droppedBytes))
	}
	return append(out, r.lines[r.start:]...)
}

// lineBytes is what a line counts against a byte cap: its bytes and a
// newline.
func lineBytes(s string) int { return len(s) + 1 }

// cutUTF8 cuts s to at most n bytes without splitting a rune.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Defaults and floor of the byte caps (Config.LogBytes, Config.OutputBytes).
// Redis holds the logs of every job kept (retention.max_jobs of them per
// context) in memory, so its cap is small: 256 KiB is some thousands of
// lines, halved between the head and the tail. output.log is on disk and
// read when something went wrong: 10 MiB, Nomad's default size of a task's
// log file.
const (
	DefaultLogBytes    = 256 << 10
	DefaultOutputBytes = 10 << 20
	MinLogBytes        = 1 << 10
)
