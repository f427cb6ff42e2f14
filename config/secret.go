package config

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"regexp"
)

// HoldsPassword says whether conn, a PostgreSQL connection string in
// either form (keyword=value pairs, or a postgres:// URL), carries a
// password.
func HoldsPassword(conn string) bool {
	if u, err := url.Parse(conn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		_, has := u.User.Password()
		return has || u.Query().Has("password")
	}
	return passwordKeyword.MatchString(conn)
}

var passwordKeyword = regexp.MustCompile(`(^|\s)password\s*=`)

// CheckPrivate says why the file at path, which holds a secret, is not
// its owner's alone (group or others may read or write it), or nil.
func CheckPrivate(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if m := st.Mode().Perm(); m&0o077 != 0 {
		return fmt.Errorf("holds a secret of the kiosk's (its password or call key to the central) but group or others may read it (mode %04o): chmod 600 %s", m, path)
	}
	return nil
}

// ReadCentralFile reads a kiosk's connection string to its central from
// a file of its own (one line; systemd's LoadCredential= makes one), which
// must be private when it holds a password.
func ReadCentralFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("central file: %w", err)
	}
	conn := string(bytes.TrimSpace(b))
	if conn == "" {
		return "", fmt.Errorf("central file %s is empty", path)
	}
	if HoldsPassword(conn) {
		if err := CheckPrivate(path); err != nil {
			return "", fmt.Errorf("central file %s %w", path, err)
		}
	}
	return conn, nil
}

// ReadCallKeyFile reads a kiosk's call key (`central kiosk add` printed
// it: 64 hexadecimal digits) from a file of its own, which must be
// private, as systemd's LoadCredential= makes one.
func ReadCallKeyFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("call key file: %w", err)
	}
	key := string(bytes.TrimSpace(b))
	if k, err := hex.DecodeString(key); err != nil || len(k) != 32 {
		return "", fmt.Errorf("call key file %s: not the 64 hexadecimal digits `starfortune central kiosk add` printed", path)
	}
	if err := CheckPrivate(path); err != nil {
		return "", fmt.Errorf("call key file %s %w", path, err)
	}
	return key, nil
}
