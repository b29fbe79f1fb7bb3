package embedredis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"

	"github.com/alicebob/miniredis/v2"
)

// startInProcess runs miniredis on 127.0.0.1:<random port> behind a random
// password, adjusted to behave like redis-server --databases N.
func startInProcess(opts Options) (*Server, error) {
	password, err := randomPassword()
	if err != nil {
		return nil, err
	}
	m := miniredis.NewMiniRedis()
	m.RequireAuth(password)
	if err := m.StartAddr("127.0.0.1:0"); err != nil {
		return nil, fmt.Errorf("in-process redis: listen: %w", err)
	}
	m.ClockTTL(true) // expire keys on the wall clock, as Redis does
	if err := limitDatabases(m.Server(), opts.Databases); err != nil {
		m.Close()
		return nil, fmt.Errorf("in-process redis: %w", err)
	}
	u := url.URL{Scheme: "redis", User: url.UserPassword("", password), Host: m.Addr()}
	s := newServer(KindInProcess, u.String(), false, opts)
	s.stop = func(context.Context) error {
		m.Close()
		s.finish(nil)
		return nil
	}
	opts.Log.Warn("embedredis: NO PERSISTENCE: using an in-process Redis-compatible "+
		"server; every job, flow, context and actor is LOST when the agent stops. "+
		"Install redis-server or set redis.url to keep data",
		"addr", m.Addr(), "databases", opts.Databases)
	return s, nil
}

func randomPassword() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("in-process redis: password: %w", err)
	}
	return hex.EncodeToString(b), nil
}
