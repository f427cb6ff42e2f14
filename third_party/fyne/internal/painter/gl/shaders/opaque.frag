#version 110

// opaque.frag draws an opaque texture as it is: no corner radius, no alpha,
// no discard. Drawn with blending disabled, software rasterizers (Mesa's
// llvmpipe) treat such a draw as opaque: they skip reading the pixels under
// it, and drop whatever was drawn before on the tiles it covers.

uniform sampler2D tex;

varying vec2 fragTexCoord;

void main() {
    gl_FragColor = texture2D(tex, fragTexCoord);
}
