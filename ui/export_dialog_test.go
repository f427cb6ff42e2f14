package ui

// AskToClose is the window's close button in kiosk mode (its close
// intercept), which the test driver's window does not call: test-only.
func (k *Kiosk) AskToClose() { k.askToClose() }
