//go:build migrated_fynedo

package build

// DisableThreadChecks disables the thread safety checks for performance.
const DisableThreadChecks = true
