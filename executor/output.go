package executor

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// maxLine is the longest line read at once; longer lines are split.
const maxLine = 64 << 10

// capture reads a process's stdout and stderr line by line: every line
// goes to the line callback (the job log), stdout is also kept up to a cap
// for the result, and the last non-empty stderr line explains failures.
type capture struct {
	line      func(string) // called from both reader goroutines
	errLine   func(string) // for stderr lines when set (else line)
	stdoutCap int

	mu      sync.Mutex
	stdout  []byte // guarded by mu
	total   int    // stdout bytes seen; guarded by mu
	lastErr string // guarded by mu

	outR, outW, errR, errW *os.File
	wg                     sync.WaitGroup
}

func newCapture(stdoutCap int, line func(string)) *capture {
	return &capture{line: line, stdoutCap: stdoutCap}
}

// attach gives cmd a pipe for stdout and one for stderr.
func (c *capture) attach(cmd *exec.Cmd) error {
	var err error
	if c.outR, c.outW, err = outputPipe(); err != nil {
		return fmt.Errorf("stdout pipe: %w", err)
	}
	if c.errR, c.errW, err = outputPipe(); err != nil {
		c.outR.Close()
		c.outW.Close()
		return fmt.Errorf("stderr pipe: %w", err)
	}
	cmd.Stdout, cmd.Stderr = c.outW, c.errW
	return nil
}

// started closes the parent's write ends and starts reading.
func (c *capture) started() {
	c.outW.Close()
	c.errW.Close()
	c.wg.Add(2)
	go c.read(c.outR, false)
	go c.read(c.errR, true)
}

// abort closes every pipe end after a failed start.
func (c *capture) abort() {
	for _, f := range []*os.File{c.outR, c.outW, c.errR, c.errW} {
		f.Close()
	}
}

// finish waits for the readers to reach EOF, at most grace from now.
func (c *capture) finish(grace time.Duration) {
	deadline := time.Now().Add(grace)
	_ = c.outR.SetReadDeadline(deadline)
	_ = c.errR.SetReadDeadline(deadline)
	c.wg.Wait()
	c.outR.Close()
	c.errR.Close()
}

// lineReaders recycles the readers of job output: each holds a maxLine
// buffer, which would otherwise be allocated (and zeroed) twice per job.
var lineReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, maxLine) }}

func (c *capture) read(f io.Reader, isErr bool) {
	defer c.wg.Done()
	br := lineReaders.Get().(*bufio.Reader)
	br.Reset(f)
	defer func() { br.Reset(nil); lineReaders.Put(br) }()
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			c.take(chunk, isErr)
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

func (c *capture) take(chunk []byte, isErr bool) {
	text := strings.TrimRight(string(chunk), "\r\n")
	c.mu.Lock()
	if isErr {
		if t := strings.TrimSpace(text); t != "" {
			c.lastErr = t
		}
	} else {
		c.total += len(chunk)
		if room := c.stdoutCap - len(c.stdout); room > 0 {
			c.stdout = append(c.stdout, chunk[:min(room, len(chunk))]...)
		}
	}
	c.mu.Unlock()
	if isErr && c.errLine != nil {
		c.errLine(text)
		return
	}
	c.line(text)
}

// Stdout returns the kept stdout, with a marker when it was truncated.
func (c *capture) Stdout() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := string(c.stdout)
	if c.total <= len(c.stdout) {
		return s
	}
	for i := 0; i < utf8.UTFMax && len(s) > 0; i++ { // do not end inside a cut rune
		if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size > 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s + fmt.Sprintf("\n[hyphae] stdout truncated: first %d of %d bytes kept", len(s), c.total)
}

// LastErr returns the last non-empty stderr line, cut to 300 bytes.
func (c *capture) LastErr() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.lastErr) > 300 {
		return strings.ToValidUTF8(c.lastErr[:300], "") + "…"
	}
	return c.lastErr
}
