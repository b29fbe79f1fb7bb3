package executor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// truncated matches the marker a capped log has where it left lines out.
var truncated = regexp.MustCompile(`^\[hyphae\] log truncated: (\d+) lines \((\d+) bytes\) left out here`)

// A chatty job's log stays within its byte caps, in Redis and on disk,
// while it runs and after: the first lines and the last ones are kept, with
// one marker between them saying how many lines were left out, and
// nothing else is lost.
func TestLogByteCapsKeepHeadAndTail(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.LogBytes, cfg.OutputBytes = 4096, 8192
	h.start(t, cfg)
	c := h.client(t, 1)
	marks := t.TempDir()
	const n = 3000 // "line 1" … "line 3000": about 30 KB
	script := fmt.Sprintf(`i=1; while [ $i -le %d ]; do echo "line $i"; i=$((i+1)); done
touch %s/half; while [ ! -e %s/go ]; do sleep 0.05; done; echo done`, n-1, marks, marks)
	key := submit(t, c, 1, 1, "sh", script)
	dir := jobDir(h.dir, 1, 1, 1, 1)

	waitFile(t, filepath.Join(marks, "half"))
	if size := outputBytes(t, dir); size > cfg.OutputBytes+64 {
		t.Errorf("while the job runs its directory holds %d bytes of output, cap %d", size, cfg.OutputBytes)
	}
	if b := listBytes(t, c.LRange(context.Background(), "logs:"+key, 0, -1).Val()); b > cfg.LogBytes/2 {
		t.Errorf("while the job runs Redis holds %d bytes of its log, more than half the cap %d", b, cfg.LogBytes)
	}
	if err := os.WriteFile(filepath.Join(marks, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitEnd(t, c, key)

	redisLog := c.LRange(context.Background(), "logs:"+key, 0, -1).Val()
	checkCapped(t, "Redis", redisLog, n, cfg.LogBytes)
	b, err := os.ReadFile(filepath.Join(dir, "output.log"))
	if err != nil {
		t.Fatal(err)
	}
	checkCapped(t, "output.log", strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), n, int(cfg.OutputBytes))
	for _, seg := range []string{"output.log.tail", "output.log.tail.1"} {
		if _, err := os.Stat(filepath.Join(dir, seg)); !os.IsNotExist(err) {
			t.Errorf("%s left in the job directory (%v)", seg, err)
		}
	}
}

// checkCapped asserts lines are "line 1"… up to a marker, then the last
// lines up to "done", within maxBytes, the marker counting exactly the
// lines missing.
func checkCapped(t *testing.T, where string, lines []string, n, maxBytes int) {
	t.Helper()
	at := -1
	for i, l := range lines {
		if truncated.MatchString(l) {
			if at >= 0 {
				t.Fatalf("%s: two truncation markers (%d and %d)", where, at, i)
			}
			at = i
		}
	}
	if at < 1 || at == len(lines)-1 {
		t.Fatalf("%s: marker at %d of %d lines: want a head and a tail around it", where, at, len(lines))
	}
	m := truncated.FindStringSubmatch(lines[at])
	left, _ := strconv.Atoi(m[1])
	head, tail := lines[:at], lines[at+1:]
	if head[0] != "line 1" || tail[len(tail)-1] != "done" {
		t.Errorf("%s: starts %q, ends %q: want the first and last lines", where, head[0], tail[len(tail)-1])
	}
	if got := len(head) + left + len(tail); got != n {
		t.Errorf("%s: %d head + %d left out + %d tail = %d lines, the job wrote %d", where, len(head), left, len(tail), got, n)
	}
	if b := listBytes(t, head) + listBytes(t, tail); b > maxBytes {
		t.Errorf("%s: %d bytes kept, cap %d", where, b, maxBytes)
	}
	first, _ := strconv.Atoi(strings.TrimPrefix(tail[0], "line "))
	if first != len(head)+left+1 {
		t.Errorf("%s: the tail starts at %q after %d head lines and %d left out", where, tail[0], len(head), left)
	}
}

// listBytes is the bytes of lines, a newline each.
func listBytes(t *testing.T, lines []string) int {
	t.Helper()
	b := 0
	for _, l := range lines {
		b += len(l) + 1
	}
	return b
}

// outputBytes is the size of output.log and its tail segments in dir.
func outputBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var size int64
	for _, name := range []string{"output.log", "output.log.tail", "output.log.tail.1"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil {
			size += fi.Size()
		}
	}
	return size
}
