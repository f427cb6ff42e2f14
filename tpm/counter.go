// Package tpm keeps a lone kiosk's anchor outside its data directory: a
// TPM 2.0 NV monotonic counter, which only ever goes up. The engine counts
// each attendant's action on it (engine.Counter): a copy of the data
// directory taken before the action is behind the counter, and the kiosk
// refuses to sell on it.
//
// A counter index is created on first use. The TPM starts a new counter at
// the highest value any counter of that TPM ever held, so deleting the
// index and defining it again never takes the count back.
package tpm

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/google/go-tpm/tpm2"
	"github.com/google/go-tpm/tpm2/transport"
	"github.com/google/go-tpm/tpm2/transport/linuxtpm"
	"github.com/google/go-tpm/tpm2/transport/linuxudstpm"
)

// DefaultIndex is the NV index of the counter, in the owner's range.
const DefaultIndex uint32 = 0x01005346

// ErrNotCounter: the NV index holds something else than an 8-byte counter
// (another program uses it): choose another index.
var ErrNotCounter = errors.New("tpm: the NV index is not a monotonic counter")

// Counter is the NV counter at an index of the TPM at a path: a TPM device
// (/dev/tpmrm0) or the Unix socket of a software TPM (swtpm socket
// --server type=unixio,path=…). Each call opens the TPM and closes it, so
// other programs share it.
type Counter struct {
	path  string
	index tpm2.TPMHandle
	fresh bool // the index was defined by Open
}

// Open reaches the TPM at path and the counter at index, defining and
// starting it if it does not exist yet.
func Open(path string, index uint32) (*Counter, error) {
	c := &Counter{path: path, index: tpm2.TPMHandle(index)}
	err := c.with(func(t transport.TPM) error {
		_, err := c.public(t)
		if errors.Is(err, tpm2.TPMRCHandle) {
			c.fresh = true
			return c.define(t)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("tpm %s, counter %#x: %w", path, index, err)
	}
	return c, nil
}

// String names the counter in messages.
func (c *Counter) String() string {
	return fmt.Sprintf("TPM counter %#x of %s", uint32(c.index), c.path)
}

// Value reads the counter; fresh says Open just started it, so that no
// data directory has counted on it yet.
func (c *Counter) Value(context.Context) (v uint64, fresh bool, err error) {
	err = c.with(func(t transport.TPM) error {
		name, err := c.public(t)
		if err != nil {
			return err
		}
		rsp, err := tpm2.NVRead{
			AuthHandle: tpm2.AuthHandle{Handle: c.index, Name: name, Auth: tpm2.PasswordAuth(nil)},
			NVIndex:    tpm2.NamedHandle{Handle: c.index, Name: name},
			Size:       8,
		}.Execute(t)
		if err != nil {
			return err
		}
		if len(rsp.Data.Buffer) != 8 {
			return ErrNotCounter
		}
		v = binary.BigEndian.Uint64(rsp.Data.Buffer)
		return nil
	})
	if err != nil {
		return 0, false, fmt.Errorf("read %s: %w", c, err)
	}
	return v, c.fresh, nil
}

// Increment adds one to the counter and returns its new value.
func (c *Counter) Increment(ctx context.Context) (uint64, error) {
	err := c.with(c.increment)
	if err != nil {
		return 0, fmt.Errorf("increment %s: %w", c, err)
	}
	v, _, err := c.Value(ctx)
	return v, err
}

func (c *Counter) increment(t transport.TPM) error {
	name, err := c.public(t)
	if err != nil {
		return err
	}
	_, err = tpm2.NVIncrement{
		AuthHandle: tpm2.AuthHandle{Handle: c.index, Name: name, Auth: tpm2.PasswordAuth(nil)},
		NVIndex:    tpm2.NamedHandle{Handle: c.index, Name: name},
	}.Execute(t)
	return err
}

// define creates the counter (owner authorisation, empty as on a fresh
// TPM; the counter's own authorisation empty: anyone who can reach the
// TPM may read it or push it forward, no one back) and increments it once,
// which is what gives a counter its first value.
func (c *Counter) define(t transport.TPM) error {
	_, err := tpm2.NVDefineSpace{
		AuthHandle: tpm2.TPMRHOwner,
		PublicInfo: tpm2.New2B(tpm2.TPMSNVPublic{
			NVIndex: c.index,
			NameAlg: tpm2.TPMAlgSHA256,
			Attributes: tpm2.TPMANV{
				AuthWrite: true,
				AuthRead:  true,
				NT:        tpm2.TPMNTCounter,
				NoDA:      true,
			},
			DataSize: 8,
		}),
	}.Execute(t)
	if err != nil {
		return fmt.Errorf("define: %w", err)
	}
	return c.increment(t)
}

// public checks that the index is an 8-byte counter and returns its name,
// which authorises the commands on it.
func (c *Counter) public(t transport.TPM) (tpm2.TPM2BName, error) {
	rsp, err := tpm2.NVReadPublic{NVIndex: c.index}.Execute(t)
	if err != nil {
		return tpm2.TPM2BName{}, err
	}
	pub, err := rsp.NVPublic.Contents()
	if err != nil {
		return tpm2.TPM2BName{}, err
	}
	if pub.Attributes.NT != tpm2.TPMNTCounter || pub.DataSize != 8 {
		return tpm2.TPM2BName{}, ErrNotCounter
	}
	return rsp.NVName, nil
}

// with opens the TPM for one exchange.
func (c *Counter) with(fn func(transport.TPM) error) error {
	fi, err := os.Stat(c.path)
	if err != nil {
		return err
	}
	var t transport.TPMCloser
	if fi.Mode()&os.ModeSocket != 0 {
		t, err = linuxudstpm.Open(c.path)
	} else {
		t, err = linuxtpm.Open(c.path)
	}
	if err != nil {
		return err
	}
	return errors.Join(fn(t), t.Close())
}
