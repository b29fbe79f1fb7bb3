package config

import "fmt"

// validate checks that a job can be unknown before it is lost: the limit
// is not below the grace.
func (s Supervisor) validate() []error {
	if s.RunnerLostAfter > 0 && s.RunnerLostAfter < s.RunnerGrace {
		return []error{fmt.Errorf("supervisor.runner_lost_after: %v is below runner_grace (%v): a job is unknown for the grace before it can be lost",
			s.RunnerLostAfter, s.RunnerGrace)}
	}
	return nil
}
