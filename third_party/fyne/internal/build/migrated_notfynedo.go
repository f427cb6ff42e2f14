//go:build !migrated_fynedo

package build

// DisableThreadChecks set to false enables the thread safety checks for logging of incorrect usage.
const DisableThreadChecks = false
