package engine

import (
	"fmt"
	"time"
)

// OperatorEvent is one entry of the operator log: a login, a failed PIN, a
// lockout, or an action (credit, payout, audit, leaving kiosk mode...). The
// log is kept in the store, numbered from 1, so that what attendants did
// survives restarts and can be reviewed.
type OperatorEvent struct {
	Seq    uint64
	Time   time.Time
	Actor  string // "operator", "cli"
	Action string // "login", "pin-failed", "locked", "credit", "payout", ...
	Detail string
}

// ActionRecoverOverride is the operator log's record of a store rebuilt
// from its journal with no anchor to check the journal against (an
// attendant's override of `recover`): the audit lists every one.
const ActionRecoverOverride = "recover-override"

// MarshalBinary encodes the event.
func (e OperatorEvent) MarshalBinary() ([]byte, error) {
	return e.AppendBinary(make([]byte, 0, 32+len(e.Actor)+len(e.Action)+min(len(e.Detail), 255)))
}

// AppendBinary appends the event's encoding to b.
func (e OperatorEvent) AppendBinary(b []byte) ([]byte, error) {
	if len(e.Detail) > 255 {
		e.Detail = e.Detail[:255]
	}
	enc := encoder{b: b}
	enc.u8(codecVersion)
	enc.u64(e.Seq)
	enc.time(e.Time)
	enc.str(e.Actor)
	enc.str(e.Action)
	enc.str(e.Detail)
	return enc.b, nil
}

// UnmarshalBinary decodes an event.
func (e *OperatorEvent) UnmarshalBinary(b []byte) error {
	d := decoder{b: b}
	d.version("operator event")
	e.Seq = d.u64()
	e.Time = d.time()
	e.Actor = d.str()
	e.Action = d.str()
	e.Detail = d.str()
	return d.done("operator event")
}

func (e OperatorEvent) String() string {
	return fmt.Sprintf("%d %s %s %s %s", e.Seq, e.Time.Format(time.RFC3339), e.Actor, e.Action, e.Detail)
}
