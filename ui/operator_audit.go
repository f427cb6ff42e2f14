package ui

import (
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// auditView is the Audit tab: the same audit as the command line, with its
// progress, and its findings.
type auditView struct {
	p        *OperatorPanel
	run      *widget.Button
	progress *widget.ProgressBar
	result   *fyne.Container
	content  fyne.CanvasObject
}

func newAuditView(p *OperatorPanel) *auditView {
	v := &auditView{p: p}
	v.content = v.build()
	return v
}

func (v *auditView) build() fyne.CanvasObject {
	v.progress = widget.NewProgressBar()
	v.result = container.NewVBox()
	v.run = widget.NewButtonWithIcon(lang.L("Run the audit"), theme.ConfirmIcon(), v.start)
	v.run.Importance = widget.HighImportance
	note := widget.NewLabel(lang.L("The same checks as « starfortune audit »: block tallies and commitments, seeds of sold-out blocks, history chains, every sale in the ledger, every balance equal to its ledger, the journal."))
	note.Wrapping = fyne.TextWrapWord
	top := container.NewVBox(heading(lang.L("Audit")), note, container.NewBorder(nil, nil, v.run, nil, v.progress))
	return container.NewBorder(top, nil, nil, nil, container.NewVScroll(v.result))
}

// start runs the audit with its progress bar, then shows the findings.
func (v *auditView) start() {
	v.run.Disable()
	v.progress.SetValue(0)
	v.result.Objects = nil
	v.result.Refresh()
	v.p.call(func(context.Context) func() {
		ctx, cancel := context.WithTimeout(v.p.k.ctx, 10*time.Minute) // longer than one engine call
		defer cancel()
		rep, err := v.p.op.Audit(ctx, func(done, total int) {
			fyne.Do(func() { v.progress.SetValue(float64(done) / float64(max(total, 1))) })
		})
		detail := fmt.Sprintf("ok=%v blocks=%d records=%d wallets=%d findings=%d", rep.OK(), rep.Blocks, rep.Records, rep.Wallets, len(rep.Findings))
		if err != nil {
			detail = "could not run: " + err.Error()
		}
		v.p.op.RecordOperator(ctx, v.p.actor, "audit", detail)
		return func() {
			v.run.Enable()
			if err != nil {
				v.p.fail(err)
				return
			}
			v.progress.SetValue(1)
			v.showAudit(rep)
		}
	})
}

func (v *auditView) showAudit(rep engine.AuditReport) {
	v.result.Objects = nil
	summary := lang.L("{{.Blocks}} blocks, {{.Records}} history records, {{.Wallets}} wallets checked",
		map[string]any{"Blocks": rep.Blocks, "Records": rep.Records, "Wallets": rep.Wallets})
	if rep.OK() {
		v.result.Add(&canvas.Text{Text: lang.L("Audit OK: no finding"), Color: colGreen, TextSize: 24, TextStyle: fyne.TextStyle{Bold: true}})
	} else {
		v.result.Add(&canvas.Text{Text: lang.L("{{.N}} findings", nth(len(rep.Findings))), Color: colRed, TextSize: 24, TextStyle: fyne.TextStyle{Bold: true}})
	}
	v.result.Add(widget.NewLabel(summary))
	for _, f := range rep.Findings {
		l := widget.NewLabel("• " + f)
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.DangerImportance
		v.result.Add(l)
	}
	if rep.WeakPIN != nil { // a notice, not a finding
		l := widget.NewLabel(pinNotice(rep.WeakPIN))
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.WarningImportance
		v.result.Add(l)
	}
	v.result.Refresh()
}
