package keyring_test

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"starfortune/keyring"
)

// TestRedaction prints keys every way a log line might: the Key's own
// methods answer "keyring.Key(redacted)", and a Key inside a caller's
// value, even in an unexported field (which fmt prints without calling
// methods), shows no byte of the key.
func TestRedaction(t *testing.T) {
	f := newFixture(t, "rotating")
	k := f.keys.Current()
	prev, _ := f.keys.Previous()
	type exported struct{ K keyring.Key }
	type unexported struct {
		k    keyring.Key
		keys keyring.Keys
		cred keyring.Credential
	}
	var leaks []string
	for _, key := range []keyring.Key{k, prev} {
		raw := keyring.KeyBytes(key)
		leaks = append(leaks, hex.EncodeToString(raw)[:8], fmt.Sprint(raw)[:12], fmt.Sprintf("%q", raw)[:8])
	}
	raw := keyring.WrapBytes(f.keys)
	leaks = append(leaks, hex.EncodeToString(raw)[:8], fmt.Sprint(raw)[:12], string(pass), fmt.Sprint(pass)[:12], hex.EncodeToString(kek)[:8], fmt.Sprint(kek)[:12])

	values := []struct {
		name  string
		v     any
		exact string // what every verb prints, when the value prints itself
	}{
		{"Key", k, "keyring.Key(redacted)"},
		{"*Key", &k, "keyring.Key(redacted)"},
		{"Keys", f.keys, "keyring.Keys(gen 2, previous 1, redacted)"},
		{"Credential", keyring.Passphrase(pass), "keyring.Credential(passphrase, redacted)"},
		{"central Credential", keyring.Central(kek), "keyring.Credential(central, redacted)"},
		{"[]Key", []keyring.Key{k, prev}, ""},
		{"map", map[string]keyring.Key{"k": k}, ""},
		{"exported field", exported{k}, ""},
		{"unexported fields", unexported{k, f.keys, keyring.Passphrase(pass)}, ""},
		{"pointer to unexported fields", &unexported{k, f.keys, keyring.Central(kek)}, ""},
	}
	for _, c := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%X", "%d", "%q", "%T %v"} {
			out := fmt.Sprintf(verb, c.v)
			if c.exact != "" && verb != "%T %v" && out != c.exact {
				t.Errorf("%s with %s: %q, want %q", c.name, verb, out, c.exact)
			}
			for _, l := range leaks {
				if strings.Contains(strings.ToLower(out), strings.ToLower(l)) {
					t.Errorf("%s with %s leaks %q: %s", c.name, verb, l, out)
				}
			}
		}
	}
	if got := fmt.Sprint(f.keys.Current()); got != "keyring.Key(redacted)" {
		t.Errorf("Sprint = %q", got)
	}
}
