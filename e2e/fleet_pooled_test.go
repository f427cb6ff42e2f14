package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"starfortune/central"
	"starfortune/internal/pgtest"
)

// A national fleet's kiosks reach their central through PgBouncer in
// transaction mode (docs/fleet.md): every kiosk logs in as the one pooled
// role `central pooler` made, and proves itself at each call with the
// call key `central kiosk add` printed.

// pooledKiosk adds kiosk id to the central db behind a pooler, and returns
// the settings file of the kiosk behind it (pooled: the pooled role's
// connection string through the pooler).
func pooledKiosk(t *testing.T, db, pooled, id string) string {
	t.Helper()
	out, errOut, code := centralCLI(t, db, "kiosk", "add", id, "--json")
	var k central.Kiosk
	if code != 0 || json.Unmarshal([]byte(out), &k) != nil || len(k.CallKey) != 64 {
		t.Fatalf("kiosk add %s: %d %s %s", id, code, out, errOut)
	}
	conf := filepath.Join(t.TempDir(), "starfortune.toml")
	body := fmt.Sprintf("kiosk_id = %q\n[central]\nurl = %q\ncall_key = %q\n", id, pooled, k.CallKey)
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return conf
}

// Two kiosk processes sell and sync through the pooler; a kiosk given
// another kiosk's call key is refused by the central (it sells only
// offline, within its grace), and the central's audit stays clean.
func TestFleetKiosksBehindPgBouncer(t *testing.T) {
	t.Parallel()
	db := fleetCentral(t, 100)
	var pooled string
	pgtest.NeedPooler(t, 4, func(addr string) string {
		out, errOut, code := centralCLI(t, db, "pooler", "--pooler", addr, "--json")
		var p central.Pooler
		if code != 0 || json.Unmarshal([]byte(out), &p) != nil {
			t.Fatalf("central pooler: %d %s %s", code, out, errOut)
		}
		pooled = p.URL
		return p.UserList
	})
	confs := map[string]string{"k1": pooledKiosk(t, db, pooled, "k1"), "k2": pooledKiosk(t, db, pooled, "k2")}
	for id, n := range map[string]int{"k1": 150, "k2": 60} {
		dir := t.TempDir()
		if sales := decodeSales(t, mustCLI(t, dir, "--config", confs[id], "play", "--stake", "0,50", "--n", fmt.Sprint(n), "--batch", "40", "--json")); len(sales) != n {
			t.Fatalf("%s sold %d units, want %d", id, len(sales), n)
		}
		var st syncJSON
		out := mustCLI(t, dir, "--config", confs[id], "sync", "--status", "--json")
		if err := json.Unmarshal([]byte(out), &st); err != nil || st.Backlog != 0 || !st.Online || st.Kiosk != id {
			t.Fatalf("%s after play: %+v %v", id, st, err)
		}
	}
	ks := fleetKiosks(t, db)
	if ks["k1"].Sales != 150 || ks["k2"].Sales != 60 {
		t.Fatalf("central: k1 %+v, k2 %+v", ks["k1"], ks["k2"])
	}

	// k2's settings with k1's call key: the central knows no such kiosk.
	b, err := os.ReadFile(confs["k1"])
	if err != nil {
		t.Fatal(err)
	}
	stolen := filepath.Join(t.TempDir(), "starfortune.toml")
	if err := os.WriteFile(stolen, []byte(strings.Replace(string(b), `kiosk_id = "k1"`, `kiosk_id = "k2"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := cli(t, t.TempDir(), "--config", stolen, "sync", "--json")
	if code != 1 || !strings.Contains(out+errOut, "not a kiosk of this central") {
		t.Fatalf("a kiosk proving its calls with another's key: status %d, %s %s", code, out, errOut)
	}
	if ks := fleetKiosks(t, db); ks["k1"].Sales != 150 || ks["k2"].Sales != 60 {
		t.Fatalf("central after the stolen key: k1 %+v, k2 %+v", ks["k1"], ks["k2"])
	}
	centralAuditOK(t, db)
}
