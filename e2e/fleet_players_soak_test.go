package e2e

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"starfortune/internal/pgtest"
)

// TestFleetPlayersHopBetweenKiosks: fifty players hop between five kiosk
// processes, each visit a deposit and a few units, while kiosks are
// killed with SIGKILL mid-play, their network is cut, the central's
// server is killed and restarted, and staff at the central lower limits
// and record breaks. Leases are small
// (2,00 € of stakes), so that sessions renew them under load. At the end,
// once every kiosk has synced: every unit a kiosk printed is at the
// central, each kiosk's own audit and the central's audit are clean, and
// the central's movements, summed here by player and rolling week, never
// take a player over a stake or deposit limit in force at the time.
func TestFleetPlayersHopBetweenKiosks(t *testing.T) {
	t.Parallel()
	const (
		nKiosks  = 5
		nPlayers = 50
		playFor  = 40 * time.Second
	)
	pgtest.Need(t)
	// A cluster of its own, which the test kills and restarts.
	cluster, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cluster.Stop() })
	name, err := cluster.CreateDB(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	db := fleetCentralIn(t, cluster.URL(name, "postgres", ""), 200)
	owner := ownerPool(t, db)
	if _, err := owner.Exec(t.Context(), "UPDATE fleet_settings SET lease_size_cents = 200"); err != nil {
		t.Fatal(err)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("drawn from seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))

	// The players, their weekly limits from 2 to 8 € of stakes, and what
	// the test did to them (the limits in force, by time).
	type player struct {
		card   string
		stakes []limitAt // stake-week, in force from each time
	}
	players := make([]*player, nPlayers)
	for i := range players {
		stake := int64(200 + 100*rng.IntN(7))
		players[i] = &player{card: centralPlayer(t, db, fmt.Sprintf("SOAK%03d", i), "--deposit-week", "30", "--stake-week", fmt.Sprintf("%d", stake/100)),
			stakes: []limitAt{{from: time.Time{}, cents: stake}}}
	}
	kiosks := make([]*kioskProc, nKiosks)
	proxies := make([]*netProxy, nKiosks)
	for i := range kiosks {
		kiosks[i] = newKioskProc(t, db, fmt.Sprintf("k%d", i+1))
		proxies[i] = newNetProxy(t, cluster.Dir, pgtest.Port)
	}

	var mu sync.Mutex // players' limits, the counts
	var visits, kills, cuts, lowered, breaks, serverKills int
	refusals := map[string]int{} // the visits refused, by why
	deadline := time.Now().Add(playFor)
	var wg sync.WaitGroup
	for i, kp := range kiosks {
		wg.Add(1)
		url := proxies[i].url(kp.url, kp.id, cluster.Dir)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(10+i)))
			for time.Now().Before(deadline) {
				p := players[r.IntN(nPlayers)]
				login := []string{"--card", p.card, "--pin", testCardPIN}
				credit := exec.Command(kp.bin, append(append([]string{"--data", kp.dir}, centralFlag(url, kp.id)...),
					append([]string{"wallet", "credit", "--amount", fmt.Sprint(1 + r.IntN(3))}, login...)...)...)
				credit.Run() // refused during a break, over the deposit limit, with the network cut: the visit goes on
				errOut, err := kp.play(url, append([]string{"--stake", "0,50", "--n", fmt.Sprint(1 + r.IntN(10))}, login...)...)
				mu.Lock()
				visits++
				if err != nil {
					why := "other"
					for _, w := range []string{"limit", "break", "insufficient funds", "lease", "offline", "central"} {
						if strings.Contains(errOut, w) {
							why = w
							break
						}
					}
					if errOut == "" {
						why = "killed"
					}
					if refusals[why]++; why == "other" {
						t.Logf("kiosk %s, card %s: %v: %s", kp.id, p.card, err, strings.TrimSpace(errOut))
					}
				}
				mu.Unlock()
			}
		}()
	}

	// The faults and the staff, until the players stop; every 12 s the
	// server killed and restarted 1 to 3 s later, logins and renewals
	// (lease reservations) in flight.
	nextServerKill := time.Now().Add(12 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(time.Duration(400+rng.IntN(800)) * time.Millisecond)
		if time.Now().After(nextServerKill) {
			crashServer(t, cluster, rng)
			serverKills++
			nextServerKill = time.Now().Add(12 * time.Second)
			continue
		}
		i := rng.IntN(nKiosks)
		switch rng.IntN(6) {
		case 0, 1:
			if kiosks[i].kill() {
				kills++
			}
		case 2, 3:
			proxies[i].cut(time.Duration(1000+rng.IntN(4000)) * time.Millisecond)
			cuts++
		case 4: // a limit lowered by 1 €, in force at once
			p := players[rng.IntN(nPlayers)]
			mu.Lock()
			now := p.stakes[len(p.stakes)-1].cents
			mu.Unlock()
			if now <= 100 {
				continue
			}
			if _, errOut, code := centralCLI(t, db, "players", "limits", p.card, "stake-week", fmt.Sprint(now/100-1)); code != 0 {
				t.Fatalf("central players limits: %s", errOut)
			}
			at := time.Now() // the decrease is in force by then
			mu.Lock()
			p.stakes = append(p.stakes, limitAt{from: at, cents: now - 100})
			lowered++
			mu.Unlock()
		default:
			if _, errOut, code := centralCLI(t, db, "players", "exclude", players[rng.IntN(nPlayers)].card, "24h"); code != 0 &&
				!strings.Contains(errOut, "shorter") {
				t.Fatalf("central players exclude: %s", errOut)
			}
			breaks++
		}
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	// Every kiosk synced and audited; every unit printed is at the central.
	sold := 0
	for _, kp := range kiosks {
		if out, errOut, code := kioskCLI(t, kp.dir, kp.url, kp.id, "sync"); code != 0 {
			t.Fatalf("kiosk %s sync: %s%s", kp.id, out, errOut)
		}
		if out, errOut, code := kioskCLI(t, kp.dir, kp.url, kp.id, "audit"); code != 0 {
			t.Fatalf("kiosk %s audit: %d\n%s%s", kp.id, code, out, errOut)
		}
	}
	held := centralSales(t, db)
	for _, kp := range kiosks {
		kp.mu.Lock()
		for ticket, printed := range kp.printed {
			if prize, ok := held[kp.id][ticket]; !ok || prize != printed {
				t.Fatalf("kiosk %s printed %s (prize %d): at the central %v (prize %d)", kp.id, ticket, printed, ok, prize)
			}
		}
		sold += len(kp.printed)
		kp.mu.Unlock()
	}
	centralAuditOK(t, db)

	// The central's movements, summed here: no player over a limit.
	rows, err := owner.Query(t.Context(), `SELECT m.player, m.kind, m.debit_cents, m.credit_cents, m.at, l.granted_at
		FROM movements m LEFT JOIN leases l ON l.id = m.lease_id WHERE m.kind IN ('sale', 'credit') ORDER BY m.at`)
	if err != nil {
		t.Fatal(err)
	}
	byCard := map[string]*player{}
	for _, p := range players {
		byCard[p.card] = p
	}
	staked, deposited := map[string]int64{}, map[string]int64{}
	for rows.Next() {
		var card, kind string
		var debit, credit int64
		var at time.Time
		var granted *time.Time
		if err := rows.Scan(&card, &kind, &debit, &credit, &at, &granted); err != nil {
			t.Fatal(err)
		}
		p := byCard[card]
		if p == nil {
			t.Fatalf("a movement of %s, no player of the test", card)
		}
		if kind == "credit" {
			if deposited[card] += credit; deposited[card] > 3000 {
				t.Fatalf("card %s deposited %d cents by %s, over its weekly 30,00 €", card, deposited[card], at)
			}
			continue
		}
		staked[card] += debit
		if granted == nil {
			t.Fatalf("card %s staked at %s under no lease", card, at)
		}
		// A lease granted before a decrease serves until its kiosk learns
		// of it (its next round, or never if cut from the central).
		if max := max(limitIn(p.stakes, at), limitIn(p.stakes, *granted)); staked[card] > max {
			t.Fatalf("card %s staked %d cents by %s, over its weekly limit of %d then", card, staked[card], at, max)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("FLEETPLAYERS kiosks=%d players=%d visits=%d units=%d kiosk_kills=%d network_cuts=%d server_kills=%d limits_lowered=%d breaks=%d refused=%v",
		nKiosks, nPlayers, visits, sold, kills, cuts, serverKills, lowered, breaks, refusals)
	if sold == 0 || kills == 0 || cuts == 0 || serverKills == 0 {
		t.Fatalf("the soak sold %d units with %d kills, %d cuts and %d server kills: it tried nothing", sold, kills, cuts, serverKills)
	}
}

// limitAt is a limit's amount in force from a time on.
type limitAt struct {
	from  time.Time
	cents int64
}

// limitIn is the limit in force at t: the last change before it.
func limitIn(ls []limitAt, t time.Time) int64 {
	v := ls[0].cents
	for _, l := range ls[1:] {
		if l.from.Before(t) {
			v = l.cents
		}
	}
	return v
}
