//go:build no_animations

package build

// NoAnimations is true if the application was built without animations by
// passing the no_animations build tag.
const NoAnimations = true
