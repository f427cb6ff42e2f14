package ui_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

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
	k := ui.NewOpening(a, ui.Options{})
	k.Terminal().Locked(func(pass []byte) error {
		if !bytes.Equal(pass, []byte("correct horse")) {
			return fmt.Errorf("unlock: %w", engine.ErrWrongPassphrase)
		}
		svc = newService(t)
		opened = true
		k.Terminal().Serve(svc) // as the opener does once unlocked
		return nil
	})
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

// newService is a game on a memory store with the test blocks.
func newService(t *testing.T) *engine.Service {
	t.Helper()
	store := memstore.New()
	for _, b := range blocks() {
		if err := store.PutBlock(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	svc, err := engine.NewService(context.Background(), store, engine.Config{Emission: 1, BlocksPerStake: 1, DemoFunds: 10_000}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return svc
}

// A terminal whose game cannot be opened shows it at once, full screen, and
// nothing of the game reaches the players; holding the top-left corner
// shows staff the reason, which follows the opener's latest attempt; once
// the cause is gone the opener serves the game and play comes back.
func TestOutOfServiceScreenUntilTheGameOpens(t *testing.T) {
	a := test.NewTempApp(t)
	k := ui.NewOpening(a, ui.Options{CornerHold: 10 * time.Millisecond})
	k.Window().Resize(fyne.NewSize(1280, 800))
	if test.Tap(k.Controls().PlayButton()); k.Controls().PlayButton().Disabled() == false {
		t.Fatal("JOUER is enabled before the game is open")
	}
	k.Terminal().OutOfService(errors.New("open store: data directory in use"))
	if reason, shown, down := k.Down(); !down || shown || !strings.Contains(reason, "data directory in use") {
		t.Fatalf("out of service: down %v, reason %q shown %v", down, reason, shown)
	}
	test.AssertImageMatches(t, "out-of-service.png", k.Window().Canvas().Capture())
	k.Window().Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyReturn})

	k.HoldDownCorner() // staff
	if reason, shown, _ := k.Down(); !shown || !strings.Contains(reason, "Hors service depuis le") {
		t.Fatalf("after holding the corner: reason %q shown %v", reason, shown)
	}
	k.Terminal().OutOfService(errors.New("open store: no space left on device"))
	if reason, _, _ := k.Down(); !strings.Contains(reason, "no space left") {
		t.Fatalf("the reason of the latest attempt: %q", reason)
	}

	svc := newService(t)
	k.Terminal().Serve(svc)
	k.Wait()
	if _, _, down := k.Down(); down {
		t.Fatal("still out of service once the game is served")
	}
	test.Tap(k.Controls().PlayButton())
	k.Wait()
	if h, _, err := svc.History(context.Background(), engine.DemoPlayer, 0, 10); err != nil || len(h) != 1 {
		t.Fatalf("JOUER once back in service: %d units sold, %v", len(h), err)
	}
}
