// Package benchbase holds the baselines of `make bench` that the project's
// own benchmarks (storage, ui) do not measure: the same work done the
// plainest way, on the same machine, in the same run. It has no code; see
// baseline_test.go and scripts/bench.sh.
package benchbase
