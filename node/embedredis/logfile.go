package embedredis

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

const (
	logName = "redis.log"
	// logRotateSize: a log bigger than this is moved to redis.log.1 at start.
	logRotateSize = 8 << 20
	// tailBytes and tailLines bound the log tail quoted in errors.
	tailBytes = 4096
	tailLines = 15
)

// openLog opens dir/redis.log for appending, after rotating a large one.
func openLog(dir string) (*os.File, error) {
	path := filepath.Join(dir, logName)
	if fi, err := os.Stat(path); err == nil && fi.Size() > logRotateSize {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open redis log: %w", err)
	}
	return f, nil
}

// logEnd is the log's current size: where the next process's output starts.
func logEnd(f *os.File) int64 {
	off, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return 0 // the tail quoted in errors may then show older runs too
	}
	return off
}

// logTail returns the last lines written to path since offset from.
func logTail(path string, from int64) string {
	f, err := os.Open(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	start := max(from, fi.Size()-tailBytes)
	if start >= fi.Size() {
		return "(log is empty)"
	}
	buf := make([]byte, fi.Size()-start)
	n, _ := f.ReadAt(buf, start)
	lines := strings.Split(strings.TrimRight(string(buf[:n]), "\n"), "\n")
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	if out := strings.Join(lines, "\n"); strings.TrimSpace(out) != "" {
		return out
	}
	return "(log is empty)"
}
