package config

import (
	"fmt"
	"strings"

	ma "github.com/multiformats/go-multiaddr"
)

// validateAddrs checks listen and bootstrap multiaddrs.
func validateAddrs(c *Config) []error {
	var errs []error
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
