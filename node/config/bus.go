package config

import (
	"fmt"
	"slices"
	"strings"
)

// Shortcuts names the bus's shortcuts that Bus.Plain and Bus.PlainOnly
// turn off, in ARCHITECTURE.md's order (the one-chunk opener, the last
// there, is not switchable).
var Shortcuts = []string{"submit", "overlap", "early", "acks", "offer", "chain", "idblocks", "replay",
	"caches", "direct", "pair"}

// PlainEnv, set to 1 in the agent's environment, sets bus.plain (CI runs
// the end-to-end tests both ways with it).
const PlainEnv = "HYPHAE_BUS_PLAIN"

// Off reports whether shortcut name is turned off (Plain, or PlainOnly
// names it).
func (b Bus) Off(name string) bool { return b.Plain || slices.Contains(b.PlainOnly, name) }

// validate refuses PlainOnly names that are no shortcut: a typo would
// otherwise leave the shortcut on and the comparison meaningless.
func (b Bus) validate() []error {
	var errs []error
	for _, name := range b.PlainOnly {
		if !slices.Contains(Shortcuts, name) {
			errs = append(errs, fmt.Errorf("bus: unknown shortcut %q (want one of %s)", name, strings.Join(Shortcuts, ", ")))
		}
	}
	return errs
}
