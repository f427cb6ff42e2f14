package ui

import (
	"context"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// systemView is the System tab: what program runs (version, commit, its
// SHA-256), whether the terminal is in service, leaving kiosk mode, closing
// the terminal, and the operator log.
type systemView struct {
	p       *OperatorPanel
	health  *widget.Label
	pin     *widget.Label // meets the rule, or must be changed
	log     *fyne.Container
	content fyne.CanvasObject
}

func newSystemView(p *OperatorPanel) *systemView {
	v := &systemView{p: p}
	v.content = v.build()
	return v
}

func (v *systemView) build() fyne.CanvasObject {
	o := v.p.k.opts
	orUnknown := func(s string) string {
		if s == "" {
			return lang.L("unknown")
		}
		return s
	}
	var hash string
	if o.BinarySHA256 != nil {
		hash = o.BinarySHA256()
	}
	sha := widget.NewLabel(orUnknown(hash))
	sha.Wrapping = fyne.TextWrapBreak
	sha.TextStyle = fyne.TextStyle{Monospace: true}
	v.health = widget.NewLabel("")
	v.health.Wrapping = fyne.TextWrapWord
	v.pin = widget.NewLabel("")
	v.pin.Wrapping = fyne.TextWrapWord
	form := container.New(formLayout{gap: 4},
		dimLabel(lang.L("Version")), valueLabel(orUnknown(o.Version)),
		dimLabel(lang.L("Commit")), valueLabel(orUnknown(o.Commit)),
		dimLabel(lang.L("Program SHA-256")), sha,
		dimLabel(lang.L("Terminal")), v.health,
		dimLabel(lang.L("Operator PIN")), v.pin,
		dimLabel(lang.L("Exports")), valueLabel(v.p.k.exportDir()),
		dimLabel(lang.L("Sound")), v.p.k.soundControl(),
	)
	leave := widget.NewButtonWithIcon(lang.L("Leave kiosk mode"), theme.ViewRestoreIcon(), func() {
		v.p.k.leaveKiosk()
		v.p.say(lang.L("Kiosk mode left: the window can be closed freely."), false)
	})
	quit := widget.NewButtonWithIcon(lang.L("Close the terminal"), theme.LogoutIcon(), func() {
		dialog.NewConfirm(lang.L("Close the terminal"), lang.L("The terminal will close."), func(ok bool) {
			if ok {
				v.p.k.recordOperatorThen("close-terminal", "from the operator panel", v.p.k.win.Close)
			}
		}, v.p.k.win).Show()
	})
	quit.Importance = widget.DangerImportance
	v.log = container.NewVBox()
	top := container.NewVBox(heading(lang.L("System")), form, container.NewHBox(leave, quit), heading(lang.L("Operator log (newest first)")))
	return container.NewBorder(top, nil, nil, nil, container.NewVScroll(v.log))
}

func (v *systemView) load() {
	v.p.call(func(ctx context.Context) func() {
		health := v.p.k.game.Health()
		pin, pinErr := v.p.op.PINStatus(ctx)
		events, err := v.p.op.OperatorLog(ctx, 30)
		return func() {
			switch {
			case pinErr != nil:
				v.pin.Importance = widget.DangerImportance
				v.pin.SetText(lang.L("Error: {{.Err}}", map[string]any{"Err": pinErr.Error()}))
			case pin.Weak != nil:
				v.pin.Importance = widget.DangerImportance
				v.pin.SetText(pinNotice(pin.Weak))
			default:
				v.pin.Importance = widget.SuccessImportance
				v.pin.SetText(lang.L("Meets the rule: 6 to 12 digits, not easy to guess"))
			}
			if health != nil {
				v.health.Importance = widget.DangerImportance
				v.health.SetText(lang.L("OUT OF SERVICE: {{.Err}}", map[string]any{"Err": health.Error()}))
			} else {
				v.health.Importance = widget.SuccessImportance
				v.health.SetText(lang.L("In service: integrity checks passed"))
			}
			if err != nil {
				v.p.fail(err)
				return
			}
			v.log.Objects = nil
			for _, e := range events {
				v.log.Add(&canvas.Text{Text: fmt.Sprintf("%d   %s   %s   %s   %s", e.Seq, when(e.Time), e.Actor, e.Action, e.Detail),
					Color: colText, TextSize: 14})
			}
			v.log.Refresh()
		}
	})
}
