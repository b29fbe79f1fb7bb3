package embedredis

import (
	"testing"
)

// capability is one thing the Hyphae store relies on its Redis for. Each runs
// on its own database so they cannot disturb each other.
type capability struct {
	name string
	run  func(t *testing.T, s *Server, db int)
}

var capabilities = []capability{
	{"SelectAllDatabases", testSelect},
	{"ConfigGetDatabases", testConfigGetDatabases},
	{"DatabasesAreSeparate", testSeparateDatabases},
	{"Hashes", testHashes},
	{"LuaScripts", testLuaScripts},
	{"LuaCjson", testLuaCjson},
	{"EvalSha", testEvalSha},
	{"QueuesFIFO", testQueuesFIFO},
	{"ListMoves", testListMoves},
	{"BlockingPops", testBlockingPops},
	{"BlockingMove", testBlockingMove},
	{"SortedSets", testSortedSets},
	{"SetNXEX", testSetNXEX},
	{"ExpiryOnWallClock", testExpiry},
	{"IncrExpire", testIncrExpire},
	{"ScanMatch", testScanMatch},
	{"PubSub", testPubSub},
	{"MultiExec", testMultiExec},
}

// TestCapabilities runs every capability against both kinds of server.
func TestCapabilities(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			s := startKind(t, k)
			for i, c := range capabilities {
				t.Run(c.name, func(t *testing.T) { c.run(t, s, i+1) })
			}
		})
	}
}
