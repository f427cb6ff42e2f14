package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// Sounds is what the window plays, at the moments it shows them. main wires
// in the sound package's player; without one the window is silent. Every
// method must return at once: a sound never delays the game.
type Sounds interface {
	// Peg is the falling puck hitting a peg at speed, in board lengths per
	// second as seen on the screen (the board is a unit square).
	Peg(speed float64)
	Land()   // the puck lands on its spot or BONUS box
	Bonus()  // the BONUS step appears
	Reveal() // GO reveals the BONUS sum
	// Result ends a unit whose prize is multiple stakes (0: not a winner).
	Result(multiple int64)
	Press()   // JOUER is pressed
	Attract() // the attract screen starts
}

// silence is the Sounds of a window without sound.
type silence struct{}

func (silence) Peg(float64)  {}
func (silence) Land()        {}
func (silence) Bonus()       {}
func (silence) Reveal()      {}
func (silence) Result(int64) {}
func (silence) Press()       {}
func (silence) Attract()     {}

// wireSounds lets the board play its falls.
func (k *Kiosk) wireSounds() {
	k.board.OnPeg = k.opts.Sounds.Peg
	k.board.OnLand = k.opts.Sounds.Land
}

// resultSound plays the end of unit s.
func (k *Kiosk) resultSound(s engine.Sale) {
	k.opts.Sounds.Result(engine.PrizeTable[s.Unit.Tier].Multiple)
}

// SoundControl is a Sounds whose volume the operator panel can change.
type SoundControl interface {
	Volume() int // per cent
	SetVolume(int)
	Muted() bool
	SetMuted(bool)
}

// soundControl is the operator panel's sound row: mute, and the volume.
// A change applies at once, until the terminal restarts with its settings
// file, and is recorded in the operator log.
func (k *Kiosk) soundControl() fyne.CanvasObject {
	c, ok := k.opts.Sounds.(SoundControl)
	if !ok {
		return valueLabel(lang.L("No sound"))
	}
	vol := widget.NewSlider(0, 100)
	vol.Step = 5
	vol.Value = float64(c.Volume())
	vol.OnChanged = func(v float64) { c.SetVolume(int(v)) }
	vol.OnChangeEnded = func(v float64) {
		k.recordOperatorThen("sound", fmt.Sprintf("volume %d%%", int(v)), k.opts.Sounds.Press) // heard at its new level
	}
	mute := widget.NewCheck(lang.L("Mute"), func(on bool) {
		c.SetMuted(on)
		k.recordOperatorThen("sound", map[bool]string{true: "muted", false: "unmuted"}[on], nil)
	})
	mute.Checked = c.Muted()
	return container.NewBorder(nil, nil, mute, nil, vol)
}
