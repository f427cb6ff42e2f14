//go:build !(!wayland && (linux || freebsd || openbsd || netbsd) && !gles && !arm && !arm64 && !wasm && !test_web_driver)

package glfw

// presentation: where the age of a back buffer is not known, every frame is
// painted whole and swapped, as upstream Fyne does.
type presentation struct{}

func (w *window) backBufferAge() int { return 0 }

func (w *window) present([]pixels, bool) { w.view().SwapBuffers() }

func (w *window) expose() {}
