package engine

// IsScript reports whether the Merkle tree's table of scripts (tree.go)
// accepts the encoded unit u.
func IsScript(u [UnitSize]byte) bool {
	id := scriptIDs[u[1]][u[2]]
	return id != 0 && scriptList[id-1].tier == u[0]
}

// Jitter is the spread of the fleet loop's periods.
var Jitter = jitter
