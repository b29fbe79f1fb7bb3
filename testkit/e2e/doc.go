// Package e2e holds end-to-end tests that run the real hyphae binary as
// processes: CLI golden paths, kill -9 recovery, drain, discovery across
// network namespaces, the demo and the README's shell blocks (readme_test.go
// says how they are run); and BenchmarkCrossAgentProcesses, the
// cross-agent round trip with each agent its own process. TestMain builds
// the binary once. The tests run in parallel (go test's -parallel, two at
// a time on two CPUs): each has its own data dirs, ports, namespaces and
// temp dirs, and their agents mostly wait. The two that count a store's
// commands over a window run alone, before the rest.
package e2e
