package config

import (
	"fmt"
	"sort"

	"github.com/hyphae-run/hyphae/context/model"
)

// RunnerType tunes the jobs of one script type on this agent's runner
// (runner.types.<type>).
type RunnerType struct {
	// MaxInFlight caps the jobs of the type the runner holds at once,
	// beside runner.concurrency; 0 = no cap of its own.
	MaxInFlight int `yaml:"max_in_flight"`
}

// TypeLimits is runner.types as executor.Config.TypeLimits: type → cap,
// for the types that have one.
func TypeLimits(types map[string]RunnerType) map[string]int {
	out := map[string]int{}
	for t, rt := range types {
		if rt.MaxInFlight > 0 {
			out[t] = rt.MaxInFlight
		}
	}
	return out
}

// validateRunnerLimits checks runner.max_in_flight_per_context and
// runner.types (in a stable order, so errors read the same each time).
func validateRunnerLimits(perContext int, types map[string]RunnerType) []error {
	var errs []error
	if perContext < 0 {
		errs = append(errs, fmt.Errorf("runner.max_in_flight_per_context: %d must not be negative (0: no cap per context)", perContext))
	}
	names := make([]string, 0, len(types))
	for t := range types {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		if !model.ValidScriptType(t) {
			errs = append(errs, fmt.Errorf("runner.types: script type %q: want letters, digits and . _ + -", t))
		}
		if n := types[t].MaxInFlight; n < 0 {
			errs = append(errs, fmt.Errorf("runner.types.%s.max_in_flight: %d must not be negative (0: no cap of its own)", t, n))
		}
	}
	return errs
}
