package ui

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
)

// Run opens the Star Fortune window for o.Player and returns when it is
// closed, or when ctx ends (SIGTERM from a service manager): the window then
// quits as if closed, so the store is closed cleanly.
//
// game gives the window its game. Run builds the window before asking for
// it, so that the caller can open the store meanwhile, on another
// goroutine, while the toolkit starts; an error from game is returned
// before the window shows.
//
// With o.Unlock set, the data directory's key must be unlocked first: the
// window shows the unlock screen, and asks for its game once an attendant
// has typed the passphrase; an error from game is then shown there.
func Run(ctx context.Context, game func() (Game, error), o Options) error {
	a := app.NewWithID("fr.starfortune.kiosk")
	k := newKiosk(a, o)
	if o.Unlock == nil {
		g, err := game()
		if err != nil {
			return err
		}
		k.attach(g)
	} else {
		k.lock(game)
	}
	stop := context.AfterFunc(ctx, func() { fyne.Do(a.Quit) })
	defer stop()
	k.Window().ShowAndRun()
	k.Wait() // an engine call in flight ends before the store is closed
	return nil
}
