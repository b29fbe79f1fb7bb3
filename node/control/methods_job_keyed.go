package control

import (
	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// checkKeyed refuses a bad key or limit, naming the parameter.
func checkKeyed(p wire.KeyedParams) error {
	if err := (model.Concurrency{Key: p.ConcurrencyKey}).Check(); err != nil {
		return api.InvalidParams("concurrency_key", "%v", err)
	}
	if err := p.Concurrency().Check(); err != nil {
		return api.InvalidParams("max_in_flight", "%v", err)
	}
	return nil
}

// keyedOf is job j's KeyedParams, as a JobView shows them.
func keyedOf(j *model.RunnerJob) wire.KeyedParams {
	c := j.Concurrency()
	return wire.KeyedParams{ConcurrencyKey: c.Key, MaxInFlight: c.MaxInFlight}
}
