package control

import "github.com/hyphae-run/hyphae/node/api/wire"

// The wire names remote.go still reads unqualified (that file is another
// change's); they go once it says wire.JobView and wire.ToAny.
type JobView = wire.JobView

// ToAny is wire.ToAny.
const ToAny = wire.ToAny
