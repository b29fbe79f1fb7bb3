package config

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"

	ma "github.com/multiformats/go-multiaddr"
	"github.com/redis/go-redis/v9"
)

// validateAddrs checks the API address and the listen and bootstrap
// multiaddrs, so that a typo fails before the store, the runner or the
// overlay start (and before a bind error could be mistaken for another
// agent holding the port).
func validateAddrs(c *Config) []error {
	var errs []error
	if err := checkHostPort(c.API.Listen); err != nil {
		errs = append(errs, fmt.Errorf("api.listen: %q: %v", c.API.Listen, err))
	}
	for _, a := range c.Overlay.Listen {
		if _, err := ma.NewMultiaddr(a); err != nil {
			errs = append(errs, fmt.Errorf("overlay.listen: %q: %v", a, err))
		}
	}
	for _, list := range []struct {
		name  string
		addrs []string
	}{{"overlay.bootstrap", c.Overlay.Bootstrap}, {"overlay.relays", c.Overlay.Relays}} {
		for _, a := range list.addrs {
			if _, err := ma.NewMultiaddr(a); err != nil {
				errs = append(errs, fmt.Errorf("%s: %q: %v", list.name, a, err))
			} else if !strings.Contains(a, "/p2p/") {
				errs = append(errs, fmt.Errorf("%s: %q: needs /p2p/<peer id> at the end", list.name, a))
			}
		}
	}
	return errs
}

// checkHostPort accepts "off" and host:port with a numeric port 0-65535
// (net.SplitHostPort alone lets "127.0.0.1:9752x" through to the bind).
func checkHostPort(v string) error {
	if v == "off" {
		return nil
	}
	host, port, err := net.SplitHostPort(v)
	if err != nil {
		return fmt.Errorf("want host:port (e.g. 127.0.0.1:9652) or off")
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || port == "" {
		return fmt.Errorf("port %q: want a number from 0 to 65535", port)
	} else if n == 0 && host == "" {
		return fmt.Errorf("want host:port (e.g. 127.0.0.1:9652) or off")
	}
	if strings.ContainsAny(host, " /\\") {
		return fmt.Errorf("host %q: want an IP address or a host name", host)
	}
	return nil
}

// validateHost checks what names a thing on this machine: the Redis URL's
// form, the swarm key file, the python interpreter and the jobs' user, so
// that each fails before anything starts, saying which key to fix.
func validateHost(c *Config) []error {
	var errs []error
	if c.Redis.URL != "" {
		if _, err := redis.ParseURL(c.Redis.URL); err != nil {
			errs = append(errs, fmt.Errorf("redis.url: %v", err))
		}
	}
	if c.Overlay.SwarmKey != "" {
		if _, err := os.Stat(c.Overlay.SwarmKey); err != nil {
			errs = append(errs, fmt.Errorf("overlay.swarm_key: %v (hyphae init --swarm-key makes one)", err))
		}
	}
	if c.Runner.Python != "" && c.HasRole("runner") {
		if _, err := exec.LookPath(c.Runner.Python); err != nil {
			errs = append(errs, fmt.Errorf("runner.python: %q: %v", c.Runner.Python, err))
		}
	}
	if c.Runner.User != "" && c.HasRole("runner") {
		if _, err := user.Lookup(c.Runner.User); err != nil {
			errs = append(errs, fmt.Errorf("runner.user: %v", err))
		} else if os.Geteuid() != 0 {
			errs = append(errs, fmt.Errorf("runner.user %q: the agent must run as root to start jobs as another user", c.Runner.User))
		}
	}
	return errs
}
