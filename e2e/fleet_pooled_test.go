package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"starfortune/central"
	"starfortune/internal/pgtest"
)

// A national fleet's kiosks reach their central through PgBouncer in
// transaction mode (docs/fleet.md): every kiosk logs in as the one pooled
// role `central pooler` made, and proves itself at each call with the
// call key `central kiosk add` printed.

// pooledCentrals holds the centrals behind a pooler: database → the
// pooled role's connection string through it; callKeyFiles each of their
// kiosks' call key file: pooled connection string and kiosk id → file.
var pooledCentrals, callKeyFiles sync.Map

// fleetCentralPooled is fleetCentral behind a PgBouncer of its own
// (poolSize server connections): fleetKiosk then gives each kiosk the
// pooled role's connection string and its call key, and every kiosk
// command of the test goes through the pooler.
func fleetCentralPooled(t *testing.T, packSize, poolSize int) (string, *pgtest.Pooler) {
	t.Helper()
	db := fleetCentral(t, packSize)
	p := pgtest.NeedPooler(t, poolSize, func(addr string) string { return poolerRole(t, db, addr) })
	return db, p
}

// poolerRole makes the central db's pooled role for a pooler at addr
// (`central pooler`), records its connection string for fleetKiosk, and
// returns the pooler's auth_file line.
func poolerRole(t *testing.T, db, addr string) string {
	t.Helper()
	out, errOut, code := centralCLI(t, db, "pooler", "--pooler", addr, "--json")
	var p central.Pooler
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil {
		t.Fatalf("central pooler: %d %s %s", code, out, errOut)
	}
	pooledCentrals.Store(db, p.URL)
	return p.UserList
}

// fleetCentralMaybePooled is fleetCentralPooled when the environment
// variable STARFORTUNE_FLEET_POOLER is set (make fleet-e2e and make
// fleet-soak with POOLER=1), fleetCentral without a pooler otherwise.
func fleetCentralMaybePooled(t *testing.T, packSize int) (string, *pgtest.Pooler) {
	t.Helper()
	if n, _ := strconv.Atoi(os.Getenv("STARFORTUNE_FLEET_POOLER")); n > 0 {
		return fleetCentralPooled(t, packSize, n)
	}
	return fleetCentral(t, packSize), nil
}

// Two kiosk processes sell and sync through the pooler; a kiosk given
// another kiosk's call key is refused by the central (it sells only
// offline, within its grace), and the central's audit stays clean.
func TestFleetKiosksBehindPgBouncer(t *testing.T) {
	t.Parallel()
	db, _ := fleetCentralPooled(t, 100, 4)
	urls := map[string]string{"k1": fleetKiosk(t, db, "k1"), "k2": fleetKiosk(t, db, "k2")}
	for id, n := range map[string]int{"k1": 150, "k2": 60} {
		dir := t.TempDir()
		if sales := decodeSales(t, mustKiosk(t, dir, urls[id], id, "play", "--stake", "0,50", "--n", fmt.Sprint(n), "--batch", "40", "--json")); len(sales) != n {
			t.Fatalf("%s sold %d units, want %d", id, len(sales), n)
		}
		if st := syncStatus(t, dir, urls[id], id); st.Backlog != 0 || !st.Online || st.Kiosk != id {
			t.Fatalf("%s after play: %+v", id, st)
		}
	}
	ks := fleetKiosks(t, db)
	if ks["k1"].Sales != 150 || ks["k2"].Sales != 60 {
		t.Fatalf("central: k1 %+v, k2 %+v", ks["k1"], ks["k2"])
	}

	// Kiosk k2 given k1's call key: the central knows no such kiosk.
	key, _ := callKeyFiles.Load(urls["k1"] + " k1")
	connFile, _ := centralFiles.Load(urls["k1"])
	out, errOut, code := cli(t, t.TempDir(), "--central-file", connFile.(string), "--kiosk-id", "k2", "--call-key-file", key.(string), "sync", "--json")
	if code != 1 || !strings.Contains(out+errOut, "not a kiosk of this central") {
		t.Fatalf("a kiosk proving its calls with another's key: status %d, %s %s", code, out, errOut)
	}
	if ks := fleetKiosks(t, db); ks["k1"].Sales != 150 || ks["k2"].Sales != 60 {
		t.Fatalf("central after the stolen key: k1 %+v, k2 %+v", ks["k1"], ks["k2"])
	}
	centralAuditOK(t, db)
}
