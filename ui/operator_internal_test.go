package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/engine/memstore"
)

func newTestKiosk(t *testing.T, o Options) (*Kiosk, *engine.Service) {
	t.Helper()
	svc, err := engine.NewService(context.Background(), memstore.New(), engine.Config{Emission: 1, BlocksPerStake: 1, DemoFunds: 10_000, PINIterations: 1000}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	if err := svc.SetPIN(context.Background(), "cli", "482915"); err != nil {
		t.Fatal(err)
	}
	k := NewKiosk(test.NewTempApp(t), svc, o)
	t.Cleanup(k.Stop)
	k.Wait()
	return k, svc
}

// A long press on the top-left corner asks for the PIN; a short one does not.
func TestCornerLongPressAsksForPIN(t *testing.T) {
	const hold = 30 * time.Millisecond
	k, _ := newTestKiosk(t, Options{CornerHold: hold})
	k.oper.corner.MouseDown(&desktop.MouseEvent{})
	k.oper.corner.MouseUp(&desktop.MouseEvent{})
	time.Sleep(5 * hold)
	k.Wait()
	if k.PINPad() != nil {
		t.Fatal("a short press asked for the PIN")
	}
	k.oper.corner.MouseDown(&desktop.MouseEvent{})
	time.Sleep(5 * hold)
	k.Wait()
	if k.PINPad() == nil {
		t.Fatal("a long press did not ask for the PIN")
	}
}

// In kiosk mode, closing the window asks for the PIN and is logged.
func TestKioskCloseNeedsPIN(t *testing.T) {
	k, svc := newTestKiosk(t, Options{Fullscreen: true})
	k.askToClose()
	k.Wait()
	pad := k.PINPad()
	if pad == nil {
		t.Fatal("closing the kiosk did not ask for the PIN")
	}
	test.Type(pad.Entry(), "0000")
	test.Tap(pad.OKButton())
	k.Wait()
	if k.PINPad() == nil {
		t.Fatal("a wrong PIN closed the kiosk")
	}
	test.Type(pad.Entry(), "482915")
	test.Tap(pad.OKButton())
	k.Wait()
	events, _ := svc.OperatorLog(context.Background(), 1)
	if len(events) != 1 || events[0].Action != "close-terminal" || !strings.Contains(events[0].Detail, "PIN") {
		t.Fatalf("last operator event %v", events)
	}
}
