package cli

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"time"

	"starfortune/central"
	"starfortune/config"
	"starfortune/engine"
)

// A kiosk of a fleet: --central URL and --kiosk-id ID, or the settings
// file's [central] url and kiosk_id, make every command and the window
// sell from the central's packs.

// openFleet connects to the central when the kiosk has one, and returns the
// engine's fleet configuration (nil for a lone kiosk) and how to close it.
func openFleet(ctx context.Context, conf config.Config) (*engine.FleetConfig, func(), error) {
	if conf.CentralURL == "" {
		return nil, func() {}, nil
	}
	var c *central.Client
	var err error
	if conf.CentralCallKey != "" { // through a pooler: each call proves the kiosk
		key, _ := hex.DecodeString(conf.CentralCallKey) // config checked it
		c, err = central.OpenPooled(ctx, conf.CentralURL, conf.Kiosk, key)
	} else {
		c, err = central.Open(ctx, conf.CentralURL)
	}
	if err != nil {
		return nil, nil, err
	}
	return &engine.FleetConfig{Central: c, Kiosk: conf.FleetKiosk(), OfflineGrace: conf.OfflineGrace, HeartbeatEvery: conf.HeartbeatEvery}, c.Close, nil
}

// syncJSON is `sync --json`'s object.
type syncJSON struct {
	Kiosk        string     `json:"kiosk"`
	Online       bool       `json:"online"`
	Contact      *time.Time `json:"last_contact"`
	Backlog      int        `json:"backlog"`
	BacklogSales int        `json:"backlog_sales"`
	Oldest       *time.Time `json:"oldest"`
	Packs        []packJSON `json:"packs"`
	Released     []string   `json:"released,omitempty"`
	Error        string     `json:"error,omitempty"`
}

type packJSON struct {
	Serial    string `json:"serial"`
	Block     string `json:"block"`
	First     uint32 `json:"first"`
	Count     uint32 `json:"count"`
	Left      uint32 `json:"left"`
	Releasing bool   `json:"releasing"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// cmdSync pushes the kiosk's backlog to the central now (--status: only
// shows it; --release: also returns the unsold remainder of its packs).
func syncFlags(fs *flag.FlagSet) func(*call) error {
	status := fs.Bool("status", false, "show the backlog and the packs held, push nothing")
	release := fs.Bool("release", false, "return the unsold remainder of every pack held to the central")
	return func(c *call) error { return syncNow(c, *status, *release) }
}

func syncNow(c *call, status, release bool) error {
	ctx, svc, out := c.ctx, c.svc, c.out
	if status && release {
		return usageError{errors.New("--status and --release do not go together")}
	}
	if svc.Fleet == nil {
		return usageError{errors.New("this terminal is not a kiosk of a fleet: give --central URL --kiosk-id ID, or [central] url in the settings file")}
	}
	var released []string
	var syncErr error
	switch {
	case release:
		released, syncErr = svc.Fleet.Release(ctx)
	case !status:
		syncErr = svc.Fleet.Sync(ctx)
	}
	st, err := svc.Fleet.Status(ctx)
	if err != nil {
		return err
	}
	if c.json {
		j := syncJSON{Kiosk: st.Kiosk, Online: st.Offline == nil, Contact: timePtr(st.Contact), Backlog: st.Backlog,
			BacklogSales: st.BacklogSales, Oldest: timePtr(st.Oldest), Packs: []packJSON{}, Released: released}
		for _, p := range st.Packs {
			j.Packs = append(j.Packs, packJSON{Serial: p.Serial, Block: p.Block.String(), First: p.First, Count: p.Count, Left: p.Left, Releasing: p.Releasing})
		}
		if syncErr != nil {
			j.Error = syncErr.Error()
		}
		if err := json.NewEncoder(out).Encode(j); err != nil {
			return err
		}
		return syncErr
	}
	contact := "jamais"
	if !st.Contact.IsZero() {
		contact = fr.When(st.Contact)
	}
	state := "en ligne"
	if st.Offline != nil {
		state = "HORS LIGNE : ventes refusées"
	}
	fmt.Fprintf(out, "Kiosque         %s (%s)\nCentrale        dernier contact %s\n", st.Kiosk, state, contact)
	if st.Backlog == 0 {
		fmt.Fprintln(out, "À synchroniser  rien")
	} else {
		fmt.Fprintf(out, "À synchroniser  %d mouvements dont %d ventes, le plus ancien du %s\n", st.Backlog, st.BacklogSales, fr.When(st.Oldest))
	}
	for _, p := range st.Packs {
		note := ""
		if p.Releasing {
			note = " (reste à rendre à la centrale)"
		}
		fmt.Fprintf(out, "Carnet          %s  positions %d à %d, %d à vendre%s\n", p.Serial, p.First, p.First+p.Count-1, p.Left, note)
	}
	for _, s := range released {
		fmt.Fprintf(out, "Rendu           %s\n", s)
	}
	return syncErr
}
