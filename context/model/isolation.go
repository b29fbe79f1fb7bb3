package model

import "fmt"

// Containment settings (docs/design.md, "Contained jobs", contained jobs), kept as additions in
// the job's and the context's hashes.
const (
	// ExtraIsolation on a context: "host" runs its jobs from other actors
	// on the host (an admin's explicit opt-out), "contained" contains its
	// jobs of this agent's own too; "" = the runner's configuration.
	ExtraIsolation = "isolation"
	// ExtraNetwork on a job or a context: "none" gives the job a network
	// namespace with only loopback; "" = the host's network.
	ExtraNetwork = "network"
	// ExtraTriggeredBy on a job: the peer ID of another actor whose event
	// started the job's run; such a job counts as that actor's and runs
	// contained like a job received from it.
	ExtraTriggeredBy = "triggered_by"
)

// Isolation and network values.
const (
	IsolationHost      = "host"
	IsolationContained = "contained"
	NetworkNone        = "none"
	NetworkHost        = "host"
)

// CheckIsolation validates an isolation value ("" = default).
func CheckIsolation(v string) error {
	switch v {
	case "", IsolationHost, IsolationContained:
		return nil
	}
	return fmt.Errorf("isolation %q: want %s or %s", v, IsolationHost, IsolationContained)
}

// CheckNetwork validates a network value ("" = default).
func CheckNetwork(v string) error {
	switch v {
	case "", NetworkNone, NetworkHost:
		return nil
	}
	return fmt.Errorf("network %q: want %s or %s", v, NetworkNone, NetworkHost)
}

// Network is the job's network setting ("" = the host's).
func (j *RunnerJob) Network() string { return j.Extra[ExtraNetwork] }

// SetNetwork records the job's network setting ("" removes it).
func (j *RunnerJob) SetNetwork(v string) { setExtra(&j.Extra, ExtraNetwork, v) }

// TriggeredBy is the peer ID of the other actor whose event started the
// job's run ("" = none).
func (j *RunnerJob) TriggeredBy() string { return j.Extra[ExtraTriggeredBy] }

// SetTriggeredBy records it ("" removes it).
func (j *RunnerJob) SetTriggeredBy(peer string) { setExtra(&j.Extra, ExtraTriggeredBy, peer) }

// Isolation is the context's isolation setting ("" = the runner's).
func (c *Context) Isolation() string { return c.Extra[ExtraIsolation] }

// Network is the context's network setting for its jobs.
func (c *Context) Network() string { return c.Extra[ExtraNetwork] }

// SetIsolation records the context's isolation and network settings.
func (c *Context) SetIsolation(isolation, network string) {
	setExtra(&c.Extra, ExtraIsolation, isolation)
	setExtra(&c.Extra, ExtraNetwork, network)
}

func setExtra(h *Hash, k, v string) {
	if v == "" {
		delete(*h, k)
		return
	}
	if *h == nil {
		*h = Hash{}
	}
	(*h)[k] = v
}
