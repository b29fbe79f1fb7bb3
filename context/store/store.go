package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// core is the one connection the concern types share: one Redis server,
// DB 0 for node-global data and one DB per context. It is safe for
// concurrent use.
type core struct {
	base   *redis.Options
	log    *slog.Logger
	maxDB  uint64 // number of databases the server has
	global *redis.Client

	mu      sync.Mutex
	clients map[uint64]*redis.Client // guarded by mu
	closed  bool                     // guarded by mu
	probe   *redis.Client            // guarded by mu; one connection that SELECTs each DB it looks at

	notifyMu   sync.Mutex // held while notify-keyspace-events is read and set
	notifyWant string     // guarded by notifyMu; the event classes asked for (enableKeyspace)

	ids  *idBlocks  // reserved id ranges, for NextIDs
	ends endWatches // jobs waited for in this process (WatchEnd)

	poison poisonSettings // idempotency retention, quarantine threshold (idempotency.go)

	// The concern types, for a method of one that calls another's.
	jobs     *Jobs
	queues   *Queues
	bus      *Bus
	flows    *Flows
	timing   *Timing
	events   *Events
	registry *Registry
	logs     *Logs
}

// Open connects to the Redis at url (redis://, rediss://, unix://; user and
// password in the URL) and learns how many databases it has.
func Open(ctx context.Context, url string, log *slog.Logger) (*Store, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("store.Open: redis url: %w", err)
	}
	return New(ctx, opts, log)
}

// New is Open with parsed options. The client retries with backoff, so a
// Redis that goes away and comes back is reconnected transparently.
func New(ctx context.Context, opts *redis.Options, log *slog.Logger) (*Store, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	o := *opts
	o.DB = 0
	if o.MaxRetries == 0 {
		o.MaxRetries = 5
	}
	o.MinRetryBackoff, o.MaxRetryBackoff = 8*time.Millisecond, time.Second
	o.ContextTimeoutEnabled = true
	s := newStore(&core{base: &o, log: log, clients: map[uint64]*redis.Client{}, ids: newIDBlocks()})
	s.global = redis.NewClient(&o)
	s.clients[0] = s.global
	if err := s.global.Ping(ctx).Err(); err != nil {
		s.global.Close()
		return nil, fmt.Errorf("store.Open: ping %s: %w", o.Addr, err)
	}
	s.maxDB = s.databases(ctx)
	return s, nil
}

// databases asks the server how many DBs it has; 16 (Redis' default) when
// CONFIG is not allowed.
func (s *core) databases(ctx context.Context) uint64 {
	res, err := s.global.ConfigGet(ctx, "databases").Result()
	if err == nil {
		if n, err := strconv.ParseUint(res["databases"], 10, 64); err == nil && n > 0 {
			return n
		}
	}
	s.log.Warn("store: cannot read CONFIG databases; assuming 16", "err", err)
	return 16
}

// databaseCount returns how many DBs the server has (contexts are 1..n-1).
func (s *core) databaseCount() uint64 { return s.maxDB }

// db returns the client for context id's database, refusing ids the server
// cannot SELECT.
func (s *core) db(id uint64) (*redis.Client, error) {
	if err := s.checkContextID(id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("store: closed")
	}
	c, ok := s.clients[id]
	if !ok {
		o := *s.base
		o.DB = int(id)
		o.PoolSize = 24 // several loops block on a context DB (msg_out, remote_done, jobs_done, claims, waiters)
		c = redis.NewClient(&o)
		s.clients[id] = c
	}
	return c, nil
}

// probeClient returns the one-connection client that looks into DBs with
// an explicit SELECT before each command (ContextsOnlyInOwnDB), opened on
// first use; its DB never leaks into the clients of db.
func (s *core) probeClient() (*redis.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("store: closed")
	}
	if s.probe == nil {
		o := *s.base
		o.PoolSize, o.MinIdleConns, o.MaxIdleConns = 1, 0, 1
		s.probe = redis.NewClient(&o)
	}
	return s.probe, nil
}

// checkContextID refuses 0 and ids beyond the server's databases.
func (s *core) checkContextID(id uint64) error {
	if id == 0 {
		return fmt.Errorf("%w: context 0 does not exist (DB 0 is node-global); use 1..%d", ErrBadContext, s.maxDB-1)
	}
	if id >= s.maxDB {
		return fmt.Errorf("%w: context %d needs DB %d but this Redis has %d databases (0..%d); raise `databases` in redis.conf",
			ErrBadContext, id, id, s.maxDB, s.maxDB-1)
	}
	return nil
}

// Close closes every connection; safe to call twice.
func (s *Store) Close() error {
	s.ids.stop()
	// Waited for without mu (a reservation under way takes it), once the
	// clients are closed (which ends one waiting for Redis).
	defer s.ids.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var first error
	if s.probe != nil {
		first = s.probe.Close()
	}
	for _, c := range s.clients {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Ping checks the server answers.
func (s *Store) Ping(ctx context.Context) error { return s.global.Ping(ctx).Err() }

// NextID allocates the next id of kind in the given DB client.
func NextID(ctx context.Context, c *redis.Client, kind string) (uint64, error) {
	n, err := c.Incr(ctx, SeqKey(kind)).Result()
	if err != nil {
		return 0, fmt.Errorf("store.NextID %s: %w", kind, err)
	}
	return uint64(n), nil
}

func now() int64 { return time.Now().Unix() }

// load reads a hash; ErrNotFound when it is empty.
func load(ctx context.Context, c *redis.Client, key string) (model.Hash, error) {
	h, err := c.HGetAll(ctx, key).Result()
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", key, err)
	}
	if len(h) == 0 {
		return nil, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	return h, nil
}

// scan lists keys matching pattern.
func scan(ctx context.Context, c *redis.Client, pattern string) ([]string, error) {
	var out []string
	seen := map[string]bool{} // SCAN may return a key more than once
	it := c.Scan(ctx, 0, pattern, 1000).Iterator()
	for it.Next(ctx) {
		if k := it.Val(); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("scan %s: %w", pattern, err)
	}
	slices.SortFunc(out, compareKeys)
	return out, nil
}

// compareKeys orders keys as a person would list them: segment by
// segment (split on ':'), numbers by value, so job:1:2 comes before
// job:1:10 and context:2 before context:10.
func compareKeys(a, b string) int {
	for a != "" || b != "" {
		var x, y string
		x, a, _ = strings.Cut(a, ":")
		y, b, _ = strings.Cut(b, ":")
		nx, errx := strconv.ParseUint(x, 10, 64)
		ny, erry := strconv.ParseUint(y, 10, 64)
		c := 0
		if errx == nil && erry == nil {
			c = cmp.Compare(nx, ny)
		} else {
			c = strings.Compare(x, y)
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// del deletes key; ErrNotFound when it did not exist.
func del(ctx context.Context, c *redis.Client, key string) error {
	n, err := c.Del(ctx, key).Result()
	if err != nil {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	return nil
}

func hset(ctx context.Context, c *redis.Client, key string, h model.Hash) error {
	args := make([]any, 0, 2*len(h))
	for k, v := range h {
		args = append(args, k, v)
	}
	if err := c.HSet(ctx, key, args...).Err(); err != nil {
		return fmt.Errorf("save %s: %w", key, err)
	}
	return nil
}

func stamp(created, updated *int64) {
	t := now()
	if *created == 0 {
		*created = t
	}
	*updated = t
}
