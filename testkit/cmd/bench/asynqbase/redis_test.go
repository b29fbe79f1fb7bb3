package asynqbase

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// server is a redis-server started with the embedded store's arguments
// (node/embedredis childArgs): no TCP, a private unix socket, AOF only.
type server struct {
	sock string
	cmd  *exec.Cmd
	// Startup is exec → first PONG.
	Startup time.Duration
}

// startServer runs redis-server from PATH (the build the agent uses) and
// stops it at cleanup.
func startServer(tb testing.TB) *server {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		tb.Fatalf("redis-server is not on PATH (apt-get install redis-server): %v", err)
	}
	dir, err := os.MkdirTemp("", "asq")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	s := &server{sock: filepath.Join(dir, "redis.sock")}
	s.cmd = exec.Command(bin, "--port", "0", "--unixsocket", s.sock, "--unixsocketperm", "700",
		"--dir", dir, "--appendonly", "yes", "--databases", "64", "--save", "",
		"--daemonize", "no", "--logfile", "")
	start := time.Now()
	if err := s.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.cmd.Process.Kill(); _ = s.cmd.Wait() })
	c := s.client(0)
	defer c.Close()
	for c.Ping(context.Background()).Err() != nil {
		if time.Since(start) > 10*time.Second {
			tb.Fatal("redis-server did not answer PING within 10 s")
		}
		time.Sleep(200 * time.Microsecond)
	}
	s.Startup = time.Since(start)
	return s
}

func (s *server) client(db int) *redis.Client {
	return redis.NewClient(&redis.Options{Network: "unix", Addr: s.sock, DB: db, MaxRetries: -1})
}

// usage is a redis-server's work so far: commands processed, CPU (user +
// system), keys over all DBs, and calls per command (INFO commandstats).
type usage struct {
	commands int64
	cpu      time.Duration
	keys     int64
	calls    map[string]int64
}

// sample reads INFO stats, cpu, keyspace and commandstats: one command.
func sample(ctx context.Context, c *redis.Client) (usage, error) {
	info, err := c.Info(ctx, "stats", "cpu", "keyspace", "commandstats").Result()
	if err != nil {
		return usage{}, fmt.Errorf("INFO: %w", err)
	}
	u := usage{calls: map[string]int64{}}
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		switch {
		case k == "total_commands_processed":
			u.commands, _ = strconv.ParseInt(v, 10, 64)
		case k == "used_cpu_user" || k == "used_cpu_sys":
			f, _ := strconv.ParseFloat(v, 64)
			u.cpu += time.Duration(f * float64(time.Second))
		case strings.HasPrefix(k, "db"): // keys=3,expires=0,avg_ttl=0
			n, _, _ := strings.Cut(strings.TrimPrefix(v, "keys="), ",")
			i, _ := strconv.ParseInt(n, 10, 64)
			u.keys += i
		case strings.HasPrefix(k, "cmdstat_"): // calls=2,usec=…
			n, _, _ := strings.Cut(strings.TrimPrefix(v, "calls="), ",")
			i, _ := strconv.ParseInt(n, 10, 64)
			u.calls[strings.TrimPrefix(k, "cmdstat_")] = i
		}
	}
	return u, nil
}

// sub is the work between two samples, less the one INFO of the first.
func (u usage) sub(v usage) usage {
	d := usage{commands: u.commands - v.commands - 1, cpu: u.cpu - v.cpu, keys: u.keys - v.keys, calls: map[string]int64{}}
	for k, n := range u.calls {
		if n -= v.calls[k]; k == "info" {
			n--
		}
		if n != 0 {
			d.calls[k] = n
		}
	}
	return d
}

// top names the commands with the most calls, as "name n/s" over el.
func (u usage) top(el time.Duration) string {
	type kv struct {
		k string
		n int64
	}
	var all []kv
	for k, n := range u.calls {
		all = append(all, kv{k, n})
	}
	for i := range all { // few entries: insertion sort by calls, descending
		for j := i; j > 0 && all[j].n > all[j-1].n; j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	var b strings.Builder
	for _, e := range all {
		fmt.Fprintf(&b, "%s %.2f/s, ", e.k, float64(e.n)/el.Seconds())
	}
	return strings.TrimSuffix(b.String(), ", ")
}

// redisPID is the server's process id (INFO server).
func redisPID(ctx context.Context, c *redis.Client) (int, error) {
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "process_id:"); ok {
			return strconv.Atoi(v)
		}
	}
	return 0, fmt.Errorf("INFO server has no process_id")
}
