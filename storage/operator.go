package storage

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"starfortune/engine"
)

func (t *tx) Setting(name string) ([]byte, bool, error) {
	item, err := t.txn.Get(settingKey(name))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, storageErr("read setting "+name, err)
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return nil, false, storageErr("read setting "+name, err)
	}
	return v, true, nil
}

func (t *tx) PutSetting(name string, v []byte) error {
	if err := t.txn.Set(settingKey(name), v); err != nil {
		return storageErr("write setting "+name, err)
	}
	return nil
}

func (t *tx) OperatorEvents(from, to uint64, fn func(engine.OperatorEvent) error) error {
	prefix := []byte{prefixOperator}
	desc := from > to
	return t.scan(prefix, operatorKey(from), desc, func(key []byte, item *badger.Item) error {
		if len(key) != 1+8 {
			return fmt.Errorf("%w: operator log key %x", engine.ErrCorrupt, key)
		}
		seq := binary.BigEndian.Uint64(key[1:])
		if !desc && seq > to || desc && seq < to {
			return errEnd
		}
		var e engine.OperatorEvent
		if err := item.Value(e.UnmarshalBinary); err != nil {
			return fmt.Errorf("operator event %d: %w", seq, err)
		}
		if e.Seq != seq {
			return fmt.Errorf("%w: operator event %d says %d", engine.ErrCorrupt, seq, e.Seq)
		}
		return fn(e)
	})
}

func (t *tx) PutOperatorEvent(e engine.OperatorEvent) error { return t.put(operatorKey(e.Seq), e) }
