package storage

import (
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Tuning makes Badger's background work happen within seconds instead of
// hours, for tests that must interrupt it (the power-cut test): small
// memtables and tables force memtable flushes and compactions; a small
// value threshold puts values in the value log, and small value-log files
// with a short interval give its garbage collection work to do. A zero
// field keeps the kiosk's setting.
type Tuning struct {
	MemTableSize     int64
	BaseTableSize    int64
	ValueThreshold   int64
	ValueLogFileSize int64
	GCInterval       time.Duration
	GCDiscardRatio   float64 // rewrite a value-log file this much garbage
	// OnGC, if set, is called when a round of value-log garbage
	// collection starts ("start"), after each value-log file it rewrote
	// ("rewrote"), and when it ends ("end").
	OnGC func(event string)
}

// tuning is set by Tune; the kiosk never sets it.
var tuning Tuning

// Tune applies t to every store opened afterwards in this process. Only
// tests call it.
func Tune(t Tuning) { tuning = t }

func (t Tuning) apply(o badger.Options) badger.Options {
	if t.MemTableSize > 0 {
		o = o.WithMemTableSize(t.MemTableSize)
	}
	if t.BaseTableSize > 0 {
		o = o.WithBaseTableSize(t.BaseTableSize).WithNumLevelZeroTables(2).WithNumLevelZeroTablesStall(8)
	}
	if t.ValueThreshold > 0 {
		o = o.WithValueThreshold(t.ValueThreshold)
	}
	if t.ValueLogFileSize > 0 {
		o = o.WithValueLogFileSize(t.ValueLogFileSize)
	}
	return o
}

func (t Tuning) gcDiscardRatio() float64 {
	if t.GCDiscardRatio > 0 {
		return t.GCDiscardRatio
	}
	return 0.5
}

func (t Tuning) gcInterval() time.Duration {
	if t.GCInterval > 0 {
		return t.GCInterval
	}
	return gcInterval
}

// PowerCutTunings are the tunings of the power-cut tests' workloads:
// "small" makes memtable flushes and compactions happen within the seconds
// a round lasts, "vlog" value-log garbage collection too.
var PowerCutTunings = map[string]Tuning{
	"small": {MemTableSize: 1 << 20, BaseTableSize: 256 << 10, ValueLogFileSize: 1 << 20, ValueThreshold: 64 << 10},
	"vlog": {MemTableSize: 1 << 20, BaseTableSize: 256 << 10, ValueLogFileSize: 1 << 20,
		ValueThreshold: 64, GCInterval: 100 * time.Millisecond, GCDiscardRatio: 0.05},
}
