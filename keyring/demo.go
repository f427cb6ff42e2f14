package keyring

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// DemoKeyFile is the usual name of the demo key file, beside the data:
// DATA/DEMO-KEY-NOT-SECRET. The name says what it is to anyone listing the
// directory.
const DemoKeyFile = "DEMO-KEY-NOT-SECRET"

// demoComment is the demo key file's first line.
const demoComment = "# Star Fortune DEMO key, NOT SECRET: anyone who reads this file can read the data beside it. Demo play only, never real money.\n"

// readDemoKey reads a demo key file: lines starting with '#' are comments,
// and one line holds the KEK as 64 hexadecimal digits.
func readDemoKey(path string) (*[32]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("keyring: demo key: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4<<10))
	if err != nil {
		return nil, fmt.Errorf("keyring: demo key: %w", err)
	}
	var key *[32]byte
	for line := range bytes.Lines(b) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		var k [32]byte
		if key != nil || len(line) != 64 {
			return nil, fmt.Errorf("%w: demo key file %s: want one line of 64 hexadecimal digits", ErrDamaged, path)
		}
		if _, err := hex.Decode(k[:], line); err != nil {
			return nil, fmt.Errorf("%w: demo key file %s: %w", ErrDamaged, path, err)
		}
		key = &k
	}
	if key == nil {
		return nil, fmt.Errorf("%w: demo key file %s: no key line", ErrDamaged, path)
	}
	return key, nil
}

// demoKey gives the demo KEK for a new demo keyring: the one in an existing
// demo key file (a crash between writing it and writing the keyring left
// it, and nothing is sealed under it yet), or a new one written to path.
func demoKey(path string) (*[32]byte, error) {
	key, err := readDemoKey(path)
	if err == nil {
		return key, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("keyring: %s exists and is not a demo key file: %w", path, err)
	}
	key = new([32]byte)
	random(key[:])
	data := []byte(demoComment + hex.EncodeToString(key[:]) + "\n")
	if err := writeFile(path, data, true); err != nil {
		return nil, err
	}
	return key, nil
}
