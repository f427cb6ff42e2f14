//go:build !wayland && (linux || freebsd || openbsd || netbsd) && !gles && !arm && !arm64 && !wasm && !test_web_driver

package glfw

/*
#cgo LDFLAGS: -lGL -lX11
#include <stdlib.h>
#include <string.h>
#include <X11/Xlib.h>
#include <GL/glx.h>

#ifndef GLX_BACK_BUFFER_AGE_EXT
#define GLX_BACK_BUFFER_AGE_EXT 0x20F4
#endif

typedef void (*fyneCopySubBufferFunc)(Display *, GLXDrawable, int, int, int, int);

static int fyneHasGLXExtension(void *display, const char *name) {
	Display *dpy = display;
	const char *ext = glXQueryExtensionsString(dpy, DefaultScreen(dpy));
	return ext != NULL && strstr(ext, name) != NULL;
}

static unsigned int fyneBufferAge(void *display, unsigned long drawable) {
	unsigned int age = 0;
	glXQueryDrawable(display, drawable, GLX_BACK_BUFFER_AGE_EXT, &age);
	return age;
}

static void *fyneCopySubBuffer(void) {
	return (void *)glXGetProcAddressARB((const GLubyte *)"glXCopySubBufferMESA");
}

static void fyneCopy(void *f, void *display, unsigned long drawable, int x, int y, int w, int h) {
	((fyneCopySubBufferFunc)f)(display, drawable, x, y, w, h);
}
*/
import "C"

import (
	"os"
	"strconv"
	"unsafe"

	"github.com/go-gl/glfw/v3.3/glfw"
)

// glx is what this process's GLX offers for painting only what changed:
// GLX_EXT_buffer_age (the age of a back buffer after swaps) and
// GLX_MESA_copy_sub_buffer (showing part of a back buffer without a swap).
var glx struct {
	checked        bool
	bufferAge      bool
	copySubBuffer  unsafe.Pointer
	fullRepainting bool // FYNE_FULL_REPAINT=1: every frame painted whole
}

// presentation is how a window shows its frames. Upstream Fyne paints every
// frame whole and swaps. Where GLX tells a back buffer's age, a frame is
// painted over it in part and swapped. Where it does not (Mesa's software
// rasterizer under X reports 0 for every frame) but can copy part of the
// back buffer to the window, the back buffer is never swapped: it always
// holds the last frame, a frame repaints what changed and copies that.
type presentation struct {
	swaps   int  // frames swapped
	copying bool // frames shown by copying what changed, swapped only on a new size
	swapped bool // copying: the last frame was swapped, the back buffer is unknown
	exposed bool // the window's pixels were lost: copy all at the next frame
	// width and height of the frame last shown
	width, height int
}

func (w *window) drawable() (unsafe.Pointer, C.ulong) {
	v := w.view()
	display := unsafe.Pointer(glfw.GetX11Display())
	drawable := C.ulong(v.GetGLXWindow())
	if drawable == 0 { // GLX before 1.3: the window is the drawable
		drawable = C.ulong(v.GetX11Window())
	}
	return display, drawable
}

// backBufferAge is the age of the back buffer the next frame is painted
// into: 1 when it holds the frame shown last, n when the one shown n-1
// frames before that, 0 when what it holds is unknown.
func (w *window) backBufferAge() int {
	if w.view() == nil {
		return 0
	}
	if !glx.checked {
		glx.checked = true
		display := unsafe.Pointer(glfw.GetX11Display())
		glx.fullRepainting, _ = strconv.ParseBool(os.Getenv("FYNE_FULL_REPAINT"))
		name := C.CString("GLX_EXT_buffer_age")
		glx.bufferAge = C.fyneHasGLXExtension(display, name) != 0
		C.free(unsafe.Pointer(name))
		name = C.CString("GLX_MESA_copy_sub_buffer")
		if C.fyneHasGLXExtension(display, name) != 0 {
			glx.copySubBuffer = C.fyneCopySubBuffer()
		}
		C.free(unsafe.Pointer(name))
	}
	p := &w.presentation
	switch {
	case glx.fullRepainting:
		return 0
	case p.copying && p.swapped:
		p.swapped = false
		return 0
	case p.copying:
		return 1
	}
	age := 0
	if glx.bufferAge {
		display, drawable := w.drawable()
		age = int(C.fyneBufferAge(display, drawable))
	}
	if age == 0 && p.swaps > 0 && glx.copySubBuffer != nil {
		// Swapped, and the driver still does not know what the buffer
		// holds: show frames by copies from now on.
		p.copying = true
	}
	return age
}

// present shows the frame just painted: parts of it, or all. A frame of a
// new size is swapped even when copying, so that the driver sizes its
// buffers anew (Mesa's software rasterizer does on a swap only; a copy
// larger than its back buffer is an X error).
func (w *window) present(parts []pixels, all bool) {
	p := &w.presentation
	width, height := w.view().GetFramebufferSize()
	resized := width != p.width || height != p.height
	p.width, p.height = width, height
	if !p.copying || resized {
		w.view().SwapBuffers()
		p.swaps++
		p.swapped = p.copying
		return
	}
	display, drawable := w.drawable()
	if all || p.exposed {
		p.exposed = false
		parts = []pixels{{0, 0, int32(width), int32(height)}}
	}
	for _, px := range parts {
		x0, y0 := clamp(px.x, int32(width)), clamp(px.y, int32(height))
		x1, y1 := clamp(px.x+px.w, int32(width)), clamp(px.y+px.h, int32(height))
		if x1 > x0 && y1 > y0 {
			C.fyneCopy(glx.copySubBuffer, display, drawable, C.int(x0), C.int(y0), C.int(x1-x0), C.int(y1-y0))
		}
	}
}

// expose notes that the window's pixels were lost (covered, unmapped): the
// next frame shows all of them again.
func (w *window) expose() {
	w.presentation.exposed = true
}

// clamp is v within 0 and limit.
func clamp(v, limit int32) int32 {
	if v < 0 {
		return 0
	}
	if v > limit {
		return limit
	}
	return v
}
