//go:build !no_metadata

package build

// NoMetadata is false if the compiler flags have not turned off metadata support.
const NoMetadata = false
