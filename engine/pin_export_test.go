package engine

import "time"

// HashPIN is the stored form of pin: tests store a PIN the rule of today
// would refuse, as a terminal set up under the former rule holds.
func HashPIN(pin string, iterations int) (string, error) { return hashPIN(pin, iterations) }

// SaveLockEvery makes the keeper of a lockout write it back every d, and
// returns what restores the real interval.
func SaveLockEvery(d time.Duration) (restore func()) {
	old := lockSaveEvery
	lockSaveEvery = func(time.Duration) time.Duration { return d }
	return func() { lockSaveEvery = old }
}
