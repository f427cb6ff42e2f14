package keyring

// KeyBytes and WrapBytes let the black-box tests check that no key is in a
// file in clear, and that a rotation changes the wrapping key. They exist
// only in the test binary.
func KeyBytes(k Key) []byte { return k.b.get()[:] }

func WrapBytes(k Keys) []byte { return k.wrap.get()[:] }

// Layout sizes the tests use to find a slot in a file.
const (
	SlotSize = slotSize
	SumSize  = sumSize
)
