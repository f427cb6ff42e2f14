package keyring

import "errors"

// The package's errors. Each error returned wraps one of these (match them
// with errors.Is) and adds what the staff need: the file, the slot, the
// part that is damaged. The texts are English, for logs and the command
// line; the window words them for the player.
var (
	// ErrNoRing: the keyring file does not exist, so the data directory
	// has not been set up for encryption. The error also wraps
	// fs.ErrNotExist.
	ErrNoRing = errors.New("keyring: no keyring file (the data directory is not set up for encryption)")

	// ErrWrongPassphrase: the passphrase does not open the passphrase slot.
	ErrWrongPassphrase = errors.New("keyring: wrong passphrase")

	// ErrWrongKey: a 32-byte key does not open what it was given for: the
	// central's key for the central slot, the demo key file for the demo
	// slot, or the keys given to a sealed stream's reader.
	ErrWrongKey = errors.New("keyring: wrong key")

	// ErrNoSlot: the keyring has no slot of the kind asked for.
	ErrNoSlot = errors.New("keyring: no such slot")

	// ErrDamaged: a keyring file, demo key file or sealed stream is
	// unreadable, truncated or was altered. The error says which part.
	ErrDamaged = errors.New("keyring: damaged or tampered with")

	// ErrWeakPassphrase: a new passphrase is shorter than
	// MinPassphraseLength characters.
	ErrWeakPassphrase = errors.New("keyring: passphrase too short")

	// ErrDemo: the operation would mix a demo keyring with a real one: a
	// passphrase or central slot on a demo keyring, a demo key on a real
	// one. A demo directory's data key has sat in clear beside its data,
	// so even rotated it never protects real money: real money starts in
	// a new data directory.
	ErrDemo = errors.New("keyring: demo and real keyrings do not mix")

	// ErrLastSlot: removing the slot would leave nothing that opens the
	// keyring.
	ErrLastSlot = errors.New("keyring: cannot remove the last slot")

	// ErrRotating: a rotation was begun and not finished; finish it first.
	ErrRotating = errors.New("keyring: a key rotation is in progress")

	// ErrNotRotating: FinishRotation on a keyring with one generation.
	ErrNotRotating = errors.New("keyring: no key rotation in progress")

	// ErrMissingCredential: BeginRotation was not given what re-seals one
	// of the keyring's slots (or was given one twice).
	ErrMissingCredential = errors.New("keyring: a credential is missing for a slot")

	// ErrStale: the Keys given were unlocked from another state of the
	// keyring (before a rotation, or from another keyring), or the file
	// changed on disk since this Ring read it. Load and unlock again.
	ErrStale = errors.New("keyring: keys or keyring out of date (load and unlock again)")
)
