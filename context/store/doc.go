// Package store is Hyphae's only door to Redis: it saves, loads, lists and
// deletes the contract's objects (DESIGN.md §3) and runs the atomic
// multi-key operations as Lua scripts.
//
// DB 0 is node-global (actors, the context registry, the peer table, node
// metadata). DB N belongs to context N. Key strings are built only by the
// helpers in keys.go. Every Lua script lives in scripts.go with its KEYS and
// ARGV documented.
package store
