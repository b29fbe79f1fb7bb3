// Package testredis starts real redis-server processes for tests: one per
// simulated agent, each on a random loopback port in its own temp dir, and
// stops them when the test ends. It is the only way tests get a Redis.
package testredis

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/testkit/need"
)

// Server is a running redis-server owned by a test.
type Server struct {
	Addr string // 127.0.0.1:port
	Dir  string // its working directory (AOF/RDB live here)
	URL  string // redis://127.0.0.1:port
	// SocketURL is unix://<socket> when Options.Socket asked for a unix
	// socket too (as the agent's embedded store uses), else empty.
	SocketURL string

	mu   sync.Mutex
	cmd  *exec.Cmd // guarded by mu
	port int
	bin  string
	exit chan struct{} // guarded by mu
}

// Options tunes Start.
type Options struct {
	Databases int  // default 64
	AOF       bool // appendonly yes
	Dir       string
	Socket    bool // also listen on a unix socket (Server.SocketURL)
}

// Binary returns the redis-server path, or ends the test naming what to
// install (need.Missing: a failure unless the opt-out is set).
func Binary(tb testing.TB) string {
	return need.Tool(tb, "redis-server", "redis-server")
}

// Start launches a redis-server and registers its shutdown with tb.Cleanup.
func Start(tb testing.TB, opt ...Options) *Server {
	tb.Helper()
	var o Options
	if len(opt) > 0 {
		o = opt[0]
	}
	if o.Databases == 0 {
		o.Databases = 64
	}
	if o.Dir == "" {
		o.Dir = tb.TempDir()
	}
	s := &Server{Dir: o.Dir, bin: Binary(tb)}
	var lastErr error
	for try := 0; try < 5; try++ {
		port, err := freePort()
		if err != nil {
			tb.Fatalf("testredis: %v", err)
		}
		if lastErr = s.start(port, o); lastErr == nil {
			tb.Cleanup(s.Stop)
			return s
		}
	}
	tb.Fatalf("testredis: start: %v", lastErr)
	return nil
}

func (s *Server) start(port int, o Options) error {
	args := []string{
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--dir", s.Dir, "--databases", strconv.Itoa(o.Databases),
		"--save", "", "--protected-mode", "no", "--loglevel", "warning",
	}
	if o.AOF {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	}
	if o.Socket {
		sock, err := s.socketPath()
		if err != nil {
			return err
		}
		args = append(args, "--unixsocket", sock, "--unixsocketperm", "700")
		s.SocketURL = "unix://" + sock
	}
	cmd := exec.Command(s.bin, args...)
	cmd.SysProcAttr = procAttr()
	logf, err := os.Create(filepath.Join(s.Dir, "redis.log"))
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	exit := make(chan struct{})
	if err := startLocked(cmd, func() { logf.Close(); close(exit) }); err != nil {
		logf.Close()
		return err
	}
	s.mu.Lock()
	s.cmd, s.port, s.exit = cmd, port, exit
	s.Addr = fmt.Sprintf("127.0.0.1:%d", port)
	s.URL = "redis://" + s.Addr
	s.mu.Unlock()
	if err := waitReady(s.Addr, exit); err != nil {
		_ = cmd.Process.Kill()
		<-exit
		return fmt.Errorf("%w; log: %s", err, tail(filepath.Join(s.Dir, "redis.log")))
	}
	return nil
}

// startLocked starts cmd and waits for it on one OS thread, locked for
// the process's whole life, then calls exited: Linux sends Pdeathsig
// (procAttr) when the thread that forked the child exits, and the Go
// runtime ends threads (one whose goroutine exits locked, as
// node/embedredis's do), which killed a test's server under its feet.
func startLocked(cmd *exec.Cmd, exited func()) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // no unlock: the thread ends with the child
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
		exited()
	}()
	return <-started
}

func waitReady(addr string, exit chan struct{}) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exit:
			return fmt.Errorf("redis-server exited early")
		default:
		}
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			_, _ = c.Write([]byte("PING\r\n"))
			_ = c.SetReadDeadline(time.Now().Add(time.Second))
			line, err := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if err == nil && strings.HasPrefix(line, "+PONG") {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("redis-server on %s not ready in 10s", addr)
}

// Client returns a go-redis client on db, closed at test end; it connects
// over the unix socket when the server has one (Options.Socket).
func (s *Server) Client(tb testing.TB, db int) *redis.Client {
	o := &redis.Options{Addr: s.Addr, DB: db}
	if sock, ok := strings.CutPrefix(s.SocketURL, "unix://"); ok {
		o.Network, o.Addr = "unix", sock
	}
	c := redis.NewClient(o)
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// Kill stops the server abruptly (SIGKILL) — a crash.
func (s *Server) Kill() {
	s.mu.Lock()
	cmd, exit := s.cmd, s.exit
	s.mu.Unlock()
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Kill()
		<-exit
	}
}

// Freeze stops the server's process (SIGSTOP) until the test ends: it
// keeps its connections but answers nothing, as a server that hangs.
func (s *Server) Freeze(tb testing.TB) {
	tb.Helper()
	s.signal(tb, syscall.SIGSTOP)
	tb.Cleanup(func() { s.signal(tb, syscall.SIGCONT) })
}

func (s *Server) signal(tb testing.TB, sig syscall.Signal) {
	tb.Helper()
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	if err := cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		tb.Fatalf("testredis: %v: %v", sig, err)
	}
}

// Stop shuts the server down; safe to call twice.
func (s *Server) Stop() {
	s.mu.Lock()
	cmd, exit := s.cmd, s.exit
	s.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = cmd.Process.Signal(os.Interrupt)
	select {
	case <-exit:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		<-exit
	}
}

// Restart starts the server again on the same port and dir (after Kill or
// Stop), so clients reconnect to the same address.
func (s *Server) Restart(tb testing.TB, opt ...Options) {
	tb.Helper()
	var o Options
	if len(opt) > 0 {
		o = opt[0]
	}
	if o.Databases == 0 {
		o.Databases = 64
	}
	s.Stop()
	if err := s.start(s.port, o); err != nil {
		tb.Fatalf("testredis: restart: %v", err)
	}
}

// FlushAll empties every DB.
func (s *Server) FlushAll(tb testing.TB) {
	c := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer c.Close()
	if err := c.FlushAll(context.Background()).Err(); err != nil {
		tb.Fatalf("testredis: flushall: %v", err)
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 500 {
		b = b[len(b)-500:]
	}
	return string(b)
}

// socketPath is where the unix socket goes: in the server's dir, which must
// be short enough for a socket path (108 bytes on Linux).
func (s *Server) socketPath() (string, error) {
	p := filepath.Join(s.Dir, "redis.sock")
	if len(p) >= 104 {
		return "", fmt.Errorf("testredis: socket path %q too long; pass a shorter Options.Dir", p)
	}
	return p, nil
}
