// Package overlaybench measures the overlay: presence traffic for a
// cluster of in-process agents. It backs the benchmarks in package overlay
// and is not used by the agent itself.
package overlaybench
