// Package archtest holds no code: its test reads perfbot's real import graph
// (go list -deps -json) and fails, naming the chain of imports, when a
// package depends on one its layer must never reach. The rules, each with
// its reason, and the known exceptions are in layers_test.go; README.md's
// Layout section describes the layers.
package archtest
