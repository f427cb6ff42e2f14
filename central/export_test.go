package central

import "starfortune/engine"

// OpenPooledMode is openPooledMode, for the benchmarks of package
// central_test.
var OpenPooledMode = openPooledMode

// The central's tests cut packs up to a whole block, to close a block in a
// claim or two; no kiosk stores them (the cli's tests check the bound).
func init() { maxPackSize = engine.BlockSize }
