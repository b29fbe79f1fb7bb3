// Package embedredis runs the agent's own Redis when no redis.url is
// configured (docs/design.md, "The JSON-RPC API", "Store default").
//
// Start picks one of two kinds of server:
//
//   - "redis-server": when a redis-server binary is on PATH (and
//     Options.ForceInProcess is false) it runs as a managed child process.
//     It listens only on a unix socket, <DataDir>/redis/redis.sock (mode
//     0700, no TCP port), keeps an append-only file in <DataDir>/redis and
//     logs to <DataDir>/redis/redis.log. The child is started with
//     Pdeathsig=SIGKILL (Linux) from an OS thread that stays alive for the
//     child's whole life, so a kill -9 of the agent also ends redis-server,
//     and in its own process group, so a terminal's Ctrl-C reaches the agent
//     only and the agent decides the shutdown order. Shutdown sends SHUTDOWN
//     (which flushes the AOF), waits for the exit and kills the process group
//     if it does not exit within 10 s. See "When the child dies" below.
//
//   - "in-process": otherwise, a Redis-protocol server from
//     github.com/alicebob/miniredis/v2 listens on 127.0.0.1 on a random port,
//     protected by a random password carried in URL. It keeps nothing across
//     restarts, and Start says so with a WARN log. The server is adjusted to
//     look like redis-server with --databases N: SELECT, MOVE and SWAPDB
//     refuse an index >= N and CONFIG GET databases answers N; keys expire
//     on the wall clock.
//
// # When the child dies
//
// A child that exits without being asked (kill -9, the OOM killer, a crash)
// is logged at ERROR level with its log's tail and restarted on the same
// socket and files, so its append-only file brings the data back and
// clients reconnect to the same URL. Restarts wait 100 ms, doubling up to
// 5 s, and one outage gets 8 of them (Options.Restart); a child that dies
// again within a minute of coming back continues the same outage, so one
// that cannot stay up is not restarted forever. Meanwhile Healthy is false
// and Health says why; Options.OnEvent hears "down", then "up" or
// "failed". When no restart works, Failed and Done are closed and Err says
// why: the agent cannot work without its store and should exit non-zero so
// that its own supervisor restarts it. Shutdown ends the restarts first: a
// child it finds being restarted is stopped too. The in-process server
// cannot die on its own and has none of this.
//
// # One data dir, one server
//
// A data dir is owned by at most one running Server at a time: Start takes
// an exclusive flock on <DataDir>/redis/embedredis.lock (released by the
// kernel if the agent dies) and a second Start on the same data dir, in this
// process or another, fails with an error saying the data dir is in use.
//
// When Start holds the lock but finds a redis-server still serving the data
// dir's socket, or a live redis-server named by <DataDir>/redis/redis.pid,
// that server is a leftover of an agent that crashed (nobody holds the lock,
// so nobody owns it). Start does not reuse it, because it could neither watch
// nor stop it like its own child: it shuts the leftover down gracefully
// (SHUTDOWN over the socket, so its AOF is flushed; SIGTERM then SIGKILL if
// that fails) and then starts a fresh child on the same files. A stale socket
// file or pid file with no live process behind it is simply removed.
package embedredis

// The child needs redis-server 6.2 or newer (LMOVE, BLMOVE); Start refuses an
// older one. Options.Databases must not shrink on an existing data dir: an
// AOF that selects a database beyond the new count makes redis-server refuse
// to start (the error quotes its log).
//
// # What the in-process server does differently
//
// The capability tests (capabilities*_test.go) run everything Hyphae relies
// on against both kinds. Known differences of miniredis v2.40.0 that code
// using the store must respect:
//
//   - Lua cjson: cjson.encode of an empty table gives "[]" (Redis: "{}"), a
//     JSON null decodes to nil instead of cjson.null (so it is dropped when
//     re-encoded), and large numbers are written as integers (Redis writes
//     1e+15, keeping 14 digits). Do not cjson.encode possibly empty maps or
//     big numbers in scripts; build such JSON in Go.
//   - Lua has no bit, cmsgpack or struct libraries, but does have an os
//     table that Redis lacks. A blocking command inside a script blocks
//     (Redis refuses it). Script errors are worded differently (wrapped in
//     "ERR Error compiling script …"): match them with strings.Contains.
//   - HGETALL returns fields in sorted order (Redis: insertion order for
//     small hashes); neither order is guaranteed.
//   - Every EVAL/EVALSHA builds a new Lua VM: fine for demos,
//     slow for load.
//   - Not supported: CLIENT (except SETNAME/GETNAME), INFO sections such as
//     server, OBJECT ENCODING, DEBUG, CONFIG other than GET databases,
//     keyspace notifications, SHUTDOWN.
//   - Everything is lost when the agent stops.
