// Package e2e holds end-to-end tests that run the real hyphae binary as
// processes: CLI golden paths, kill -9 recovery, drain, discovery across
// network namespaces, and the demo; and BenchmarkCrossAgentProcesses, the
// cross-agent round trip with each agent its own process. TestMain builds
// the binary once.
package e2e
