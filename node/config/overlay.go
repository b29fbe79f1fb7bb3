package config

import "fmt"

// Reachability values of overlay.reachability.
var reachabilities = []string{"", "auto", "private", "public"}

// validateOverlay checks the overlay keys that are not addresses.
func validateOverlay(c *Config) []error {
	for _, r := range reachabilities {
		if c.Overlay.Reachability == r {
			return nil
		}
	}
	return []error{fmt.Errorf("overlay.reachability: %q: want auto, private or public", c.Overlay.Reachability)}
}
