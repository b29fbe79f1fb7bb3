package embedredis

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
)

const (
	socketName = "redis.sock"
	pidName    = "redis.pid"
	// maxSocketPath is sun_path's size on Linux minus the NUL byte.
	maxSocketPath = 107
)

// Phases of a child. Only the exit of a running child is unexpected.
const (
	phaseStarting int32 = iota
	phaseRunning
	phaseStopping
	phaseDead
)

// child is a managed redis-server process and the files it uses.
type child struct {
	dir      string // DataDir/redis
	sock     string
	pidPath  string
	logPath  string
	logStart int64 // offset of this run's output in the log
	logFile  *os.File
	lock     *os.File
	cmd      *exec.Cmd
	log      *slog.Logger
	phase    atomic.Int32  // phaseStarting, phaseRunning, phaseStopping, phaseDead
	exited   chan struct{} // closed after cmd.Wait returned and Done closed
	waitErr  error         // cmd.Wait's result; read after exited
}

// startChild runs bin as the data dir's redis-server and waits until it is
// ready. On error nothing is left running and the lock is released.
func startChild(ctx context.Context, opts Options, bin string) (*Server, error) {
	if err := checkVersion(ctx, bin); err != nil {
		return nil, err
	}
	c, err := prepareChild(ctx, opts)
	if err != nil {
		return nil, err
	}
	s := newServer(KindRedisServer, "unix://"+c.sock, true, opts.Log)
	s.child = c
	s.stop = c.shutdown
	if err := c.spawn(bin, childArgs(c, opts.Databases), s); err != nil {
		c.release()
		return nil, err
	}
	err = c.waitReady(ctx, opts.Log)
	if err == nil && !c.phase.CompareAndSwap(phaseStarting, phaseRunning) {
		<-c.exited // it died right after answering PING
		err = c.startError(fmt.Sprintf("redis-server exited during start (%v)", c.waitErr))
	}
	if err != nil {
		c.phase.Store(phaseStopping)
		c.kill()
		<-c.exited
		c.release()
		return nil, err
	}
	opts.Log.Info("embedredis: redis-server ready", "bin", bin, "pid", c.cmd.Process.Pid,
		"socket", c.sock, "dir", c.dir, "databases", opts.Databases)
	return s, nil
}

// prepareChild creates DataDir/redis, takes the data dir's lock, clears what a
// crashed agent left behind and opens the log.
func prepareChild(ctx context.Context, opts Options) (*child, error) {
	if opts.DataDir == "" {
		return nil, fmt.Errorf("redis-server needs Options.DataDir")
	}
	dir := filepath.Join(opts.DataDir, "redis")
	c := &child{dir: dir, sock: filepath.Join(dir, socketName),
		pidPath: filepath.Join(dir, pidName), logPath: filepath.Join(dir, logName),
		exited: make(chan struct{}), log: opts.Log}
	if len(c.sock) > maxSocketPath {
		return nil, fmt.Errorf("socket path %s is %d bytes, longer than the "+
			"%d a unix socket allows: use a shorter data dir", c.sock, len(c.sock), maxSocketPath)
	}
	if err := makePrivateDir(dir); err != nil {
		return nil, err
	}
	var err error
	if c.lock, err = acquireLock(dir); err != nil {
		return nil, err
	}
	if err = clearLeftover(ctx, c, opts.Log); err == nil {
		c.logFile, c.logStart, err = openLog(dir)
	}
	if err != nil {
		releaseLock(c.lock)
		return nil, err
	}
	return c, nil
}

// makePrivateDir creates dir (and parents) and makes dir itself 0700.
func makePrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("chmod %s: %w", dir, err)
	}
	return nil
}

// childArgs is redis-server's command line: no TCP, a private unix socket,
// AOF persistence only, and logs on stdout (which goes to redis.log).
func childArgs(c *child, databases int) []string {
	return []string{
		"--port", "0",
		"--unixsocket", c.sock,
		"--unixsocketperm", "700",
		"--dir", c.dir,
		"--appendonly", "yes",
		"--databases", strconv.Itoa(databases),
		"--save", "",
		"--daemonize", "no",
		"--logfile", "",
	}
}

// release removes the pid file and a socket file left by a killed child,
// and closes the log and the lock. Only call it when the child is gone.
func (c *child) release() {
	_ = os.Remove(c.pidPath)
	_ = os.Remove(c.sock)
	if c.logFile != nil {
		_ = c.logFile.Close()
	}
	releaseLock(c.lock)
}
