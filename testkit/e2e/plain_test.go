package e2e

import (
	"os"

	"github.com/hyphae-run/hyphae/node/config"
)

// With HYPHAE_TEST_BUS_PLAIN=1 (CI's second run of the cross-agent tests)
// the agents these tests start take the bus's plain path: they are
// `hyphae run` processes, which inherit this environment, and the agent
// reads HYPHAE_BUS_PLAIN=1 as bus.plain (config.PlainEnv).
func init() {
	if os.Getenv("HYPHAE_TEST_BUS_PLAIN") == "1" {
		_ = os.Setenv(config.PlainEnv, "1")
	}
}
