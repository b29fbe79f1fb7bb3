// Package testnet keeps the agents the test suite starts on this machine.
//
// An agent started on the host itself — in the test process, or from the
// built binary — runs with mDNS off (it would send multicast queries and
// announcements on every interface of the host, out onto whatever LAN the
// machine is on) and UPnP / NAT-PMP port mapping off (it would look for
// the LAN's gateway and ask it to open ports). Guard fails a test that
// starts such an agent with either on; OffFlags and HostRunArgs are what
// binaries get.
//
// Tests that need mDNS run in network namespaces joined by a veth bridge
// that lives in a namespace of its own (Lab), so nothing they send reaches
// the host's interfaces: binaries under Lab.Exec, and the test binary
// itself re-executed in a namespace (Lab.Command, RunInLab, RunBenchInLab).
// Inside a Lab namespace Guard lets mDNS and port mapping be. Labs need
// root; without it the tests that need them skip, saying so.
package testnet
