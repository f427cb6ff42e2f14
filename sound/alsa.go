package sound

// #cgo pkg-config: alsa
// #include <alsa/asoundlib.h>
//
// static void quiet(const char *file, int line, const char *fn, int err, const char *fmt, ...) {}
// static void quietALSA(void) { snd_lib_error_set_handler(quiet); }
import "C"

// quietALSA stops libasound printing its own errors on stderr: without a
// sound card it prints some sixteen lines while the player looks for a
// device, where the game logs one.
func quietALSA() { C.quietALSA() }
