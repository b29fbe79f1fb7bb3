// Package overlaybench measures the overlay: presence traffic for a
// cluster of in-process agents, and the raw gossipsub baseline's bare
// hosts (RawNode). It backs the benchmarks in packages overlay and node
// and is not used by the agent itself.
package overlaybench
