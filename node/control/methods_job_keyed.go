package control

import (
	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api"
)

// KeyedParams orders jobs per key (JobRunParams embeds it): jobs of a
// context with the same concurrency_key run at most max_in_flight at a
// time (default 1: one after another, in submission order), on the
// runner that takes them; see docs/flow-control.md.
type KeyedParams struct {
	ConcurrencyKey string `json:"concurrency_key,omitempty"`
	MaxInFlight    int64  `json:"max_in_flight,omitempty"`
}

// concurrency is the job's model.Concurrency.
func (p KeyedParams) concurrency() model.Concurrency {
	return model.Concurrency{Key: p.ConcurrencyKey, MaxInFlight: p.MaxInFlight}
}

// checkKeyed refuses a bad key or limit, naming the parameter.
func (p KeyedParams) checkKeyed() error {
	if err := (model.Concurrency{Key: p.ConcurrencyKey}).Check(); err != nil {
		return api.InvalidParams("concurrency_key", "%v", err)
	}
	if err := p.concurrency().Check(); err != nil {
		return api.InvalidParams("max_in_flight", "%v", err)
	}
	return nil
}

// keyedOf is job j's KeyedParams, as a JobView shows them.
func keyedOf(j *model.RunnerJob) KeyedParams {
	c := j.Concurrency()
	return KeyedParams{ConcurrencyKey: c.Key, MaxInFlight: c.MaxInFlight}
}
