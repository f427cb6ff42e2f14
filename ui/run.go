package ui

import (
	"sync"
	"time"

	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
)

// Run opens the Star Fortune window for o.Player and returns when it is
// closed, or when ctx ends (SIGTERM from a service manager): the window then
// quits as if closed, so the store is closed cleanly.
//
// The window shows at once, on the board with play held, and open runs on
// a goroutine of its own once the board is on the screen, or after a
// second whatever the screen (the key's derivation takes both cores for a
// fifth of a second: not while the GL context starts and the first frame is
// drawn). open opens the game and tells the window through t where it
// stands (Terminal: the unlock screen, out of service, the game served).
// Run returns once the window is closed and the engine calls in flight are
// back; open must then let go of the game, which is its caller's to close.
func Run(ctx context.Context, o Options, open func(t Terminal)) error {
	a := app.NewWithID("fr.starfortune.kiosk")
	k := newKiosk(a, o)
	// Fyne paints the board once as the window is made, before it is on
	// the screen, and again at the size the screen gives it, after the
	// app's start: the game opens after that frame (fyne.Do runs once it is
	// presented), or 200 ms after the start when no such frame comes (the
	// window was shown at its size).
	shown := make(chan struct{})
	show := sync.OnceFunc(func() { close(shown) })
	a.Lifecycle().SetOnStarted(func() {
		k.board.painted = func() { fyne.Do(show) }
		time.AfterFunc(200*time.Millisecond, show)
	})
	go func() {
		select {
		case <-shown:
		case <-time.After(time.Second):
		}
		open(k.Terminal())
	}()
	stop := context.AfterFunc(ctx, func() { fyne.Do(a.Quit) })
	defer stop()
	k.Window().ShowAndRun()
	k.stop() // what an engine call in flight still waits for (a pack from a hung central) is given up
	k.Wait() // and the call ends before the store is closed
	return nil
}
