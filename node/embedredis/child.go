package embedredis

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

const (
	socketName = "redis.sock"
	pidName    = "redis.pid"
	// maxSocketPath is sun_path's size on Linux minus the NUL byte.
	maxSocketPath = 107
)

// child is the data dir's managed redis-server: the files it uses, the
// current process, and the goroutine that restarts it when it dies.
type child struct {
	dir     string // DataDir/redis
	sock    string
	pidPath string
	logPath string
	logFile *os.File
	lock    *os.File
	bin     string
	args    []string
	policy  RestartPolicy
	log     *slog.Logger

	// ctx ends when Shutdown begins: from then on nothing is restarted.
	ctx        context.Context
	cancel     context.CancelFunc
	supervised chan struct{} // closed when supervise returns

	mu  sync.Mutex
	cur *proc // the latest process; nil if a restart could not even spawn
}

// startChild runs bin as the data dir's redis-server, waits until it is
// ready and leaves it supervised. On error nothing is left running and the
// lock is released.
func startChild(ctx context.Context, opts Options, bin string) (*Server, error) {
	if err := checkVersion(ctx, bin); err != nil {
		return nil, err
	}
	c, err := prepareChild(ctx, opts, bin)
	if err != nil {
		return nil, err
	}
	p, err := c.startProc(ctx)
	if err != nil {
		c.release()
		return nil, err
	}
	s := newServer(KindRedisServer, "unix://"+c.sock, true, opts)
	s.child = c
	s.stop = func(ctx context.Context) error {
		err := c.shutdown(ctx)
		s.finish(nil)
		return err
	}
	go c.supervise(s)
	opts.Log.Info("embedredis: redis-server ready", "bin", bin, "pid", p.pid(),
		"socket", c.sock, "dir", c.dir, "databases", opts.Databases)
	return s, nil
}

// startProc spawns a redis-server and waits until it answers PING; one that
// does not is killed.
func (c *child) startProc(ctx context.Context) (*proc, error) {
	p, err := c.spawn()
	if err != nil {
		return nil, err
	}
	if err := c.waitReady(ctx, p); err != nil {
		p.kill()
		<-p.exited
		return nil, err
	}
	return p, nil
}

// prepareChild creates DataDir/redis, takes the data dir's lock, clears what a
// crashed agent left behind and opens the log.
func prepareChild(ctx context.Context, opts Options, bin string) (*child, error) {
	if opts.DataDir == "" {
		return nil, fmt.Errorf("redis-server needs Options.DataDir")
	}
	dir := filepath.Join(opts.DataDir, "redis")
	c := &child{dir: dir, sock: filepath.Join(dir, socketName),
		pidPath: filepath.Join(dir, pidName), logPath: filepath.Join(dir, logName),
		bin: bin, policy: opts.Restart, log: opts.Log, supervised: make(chan struct{})}
	c.args = childArgs(c, opts.Databases)
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
		c.logFile, err = openLog(dir)
	}
	if err != nil {
		releaseLock(c.lock)
		return nil, err
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
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
	c.cancel()
	_ = os.Remove(c.pidPath)
	_ = os.Remove(c.sock)
	if c.logFile != nil {
		_ = c.logFile.Close()
	}
	releaseLock(c.lock)
}
