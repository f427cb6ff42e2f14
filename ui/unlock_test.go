package ui_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/engine/memstore"
	"starfortune/ui"
)

// A lone kiosk starts on its unlock screen: nothing of the game behind it,
// no key reaching the game; a wrong passphrase says so and the screen
// stays; the right one opens the game, which then plays.
func TestUnlockScreenOpensTheGame(t *testing.T) {
	a := test.NewTempApp(t)
	var opened bool
	var svc *engine.Service
	o := ui.Options{Unlock: func(pass []byte) error {
		if !bytes.Equal(pass, []byte("correct horse")) {
			return fmt.Errorf("unlock: %w", engine.ErrWrongPassphrase)
		}
		return nil
	}}
	k := ui.NewLockedKiosk(a, func() (ui.Game, error) {
		store := memstore.New()
		for _, b := range blocks() {
			if err := store.PutBlock(context.Background(), b); err != nil {
				return nil, err
			}
		}
		var err error
		svc, err = engine.NewService(context.Background(), store, engine.Config{Emission: 1, BlocksPerStake: 1, DemoFunds: 10_000}, zerolog.Nop())
		t.Cleanup(svc.Close)
		opened = true
		return svc, err
	}, o)
	k.Window().Resize(fyne.NewSize(1280, 800))
	test.AssertImageMatches(t, "unlock-screen.png", k.Window().Canvas().Capture())

	k.Window().Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyReturn}) // JOUER's key: nothing to play
	k.Unlock("wrong passphrase")
	k.Wait()
	if msg, locked := k.Locked(); !locked || msg != "Phrase secrète incorrecte." || opened {
		t.Fatalf("after a wrong passphrase: locked %v, message %q, game opened %v", locked, msg, opened)
	}
	k.Unlock("correct horse")
	k.Wait()
	if _, locked := k.Locked(); locked || !opened {
		t.Fatalf("after the right passphrase: locked %v, game opened %v", locked, opened)
	}
	test.Tap(k.Controls().PlayButton())
	k.Wait()
	if h, _, err := svc.History(context.Background(), engine.DemoPlayer, 0, 10); err != nil || len(h) != 1 {
		t.Fatalf("JOUER after the unlock: %d units sold, %v", len(h), err)
	}
}
