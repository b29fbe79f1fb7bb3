// Package model holds Hyphae's data types — Actor, Context, Flow, Message,
// Runner, RunnerJob, Peer — their status enums, and the codec between each
// type and its Redis hash (docs/design.md, "Redis layout", the contract).
//
// Hash field encoding: integers and ids are decimal strings; booleans are
// "true"/"false"; lists and maps are JSON; timestamps are unix seconds; enums
// are lowercase words. Decoding is lenient about what may be missing
// (optional fields default to zero values) and strict about what is present:
// a field that holds garbage yields a *FieldError naming the key and field.
// Unknown fields are kept in Extra so that a round trip preserves them.
package model
