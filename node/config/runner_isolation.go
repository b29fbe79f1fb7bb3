package config

import (
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
)

// RunnerIsolation says which jobs run contained (runner.isolation; docs/design.md
// §5): as a user that is not the agent's, in their own mount, pid and ipc
// namespaces, the data dir hidden.
type RunnerIsolation struct {
	// Own: the agent's own jobs (its CLI, API, flows, schedules, Redis
	// and hero clients): host (default) or contained.
	Own string `yaml:"own"`
	// Remote: jobs from other actors, received over the bus: contained
	// (default) or host. host lets them read the agent's key, token and
	// store; a context's admin can opt one context out instead
	// (hyphae context set N --isolation host).
	Remote string `yaml:"remote"`
	// User runs contained jobs as this user when the agent is root; ""
	// (default) = one uid per context from 61184 up.
	User string `yaml:"user"`
	// PidsMax bounds the processes of a contained job where cgroups allow;
	// default 512, -1 = no limit.
	PidsMax int64 `yaml:"pids_max"`
}

// validateIsolation checks runner.isolation.
func validateIsolation(r RunnerIsolation) []error {
	var errs []error
	if err := model.CheckIsolation(r.Own); err != nil {
		errs = append(errs, fmt.Errorf("runner.isolation.own: %w", err))
	}
	if err := model.CheckIsolation(r.Remote); err != nil {
		errs = append(errs, fmt.Errorf("runner.isolation.remote: %w", err))
	}
	if r.PidsMax < -1 {
		errs = append(errs, fmt.Errorf("runner.isolation.pids_max: %d: want -1 (no limit), 0 (default 512) or more", r.PidsMax))
	}
	return errs
}
