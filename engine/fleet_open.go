package engine

import "time"

// Check refuses an opening request as Accounts.Open refuses it before it
// opens anything (the holder's identity and age, the limits, the card's
// PIN), at now: a fleet's central opens its accounts with the lone
// kiosk's rules (central.Admin.OpenPlayer).
func (r OpenRequest) Check(now time.Time) error { return r.check(now) }
