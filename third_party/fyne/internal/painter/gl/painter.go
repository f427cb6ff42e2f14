// Package gl provides a full Fyne render implementation using system OpenGL libraries.
package gl

import (
	"fmt"
	"image"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/internal/driver"
	"fyne.io/fyne/v2/theme"
)

// Painter defines the functionality of our OpenGL based renderer
type Painter interface {
	// Init tell a new painter to initialise, usually called after a context is available
	Init()
	// Capture requests that the specified canvas be drawn to an in-memory image
	Capture(fyne.Canvas) image.Image
	// Clear tells our painter to prepare a fresh paint
	Clear()
	// Free is used to indicate that a certain canvas object is no longer needed
	Free(fyne.CanvasObject)
	// Paint a single fyne.CanvasObject but not its children.
	Paint(fyne.CanvasObject, fyne.Position, fyne.Size)
	// SetFrameBufferScale tells us when we have more than 1 framebuffer pixel for each output pixel
	SetFrameBufferScale(float32)
	// SetOutputSize is used to change the resolution of our output viewport
	SetOutputSize(int, int)
	// StartClipping tells us that the following paint actions should be clipped to the specified area.
	StartClipping(fyne.Position, fyne.Size)
	// StopClipping stops clipping paint actions.
	StopClipping()

	// SetDamage limits the following paint actions (Clear included) to the
	// specified pixels (x, y from the bottom-left corner, as GL counts
	// them): a part of the frame to paint again over what the target holds.
	SetDamage(x, y, w, h int32)
	// ClearDamage lets paint actions reach the whole frame again.
	ClearDamage()
}

// NewPainter creates a new GL based renderer for the provided canvas.
// If it is a master painter it will also initialise OpenGL
func NewPainter(c fyne.Canvas, ctx driver.WithContext) Painter {
	p := &painter{canvas: c, contextProvider: ctx}
	p.SetFrameBufferScale(1.0)
	return p
}

type painter struct {
	canvas          fyne.Canvas
	ctx             context
	contextProvider driver.WithContext
	program         ProgramState
	// opaqueProgram draws the textures of opaqueTextures without blending
	// (desktop OpenGL only: hasOpaqueProgram).
	opaqueProgram    ProgramState
	hasOpaqueProgram bool
	opaqueTextures   map[Texture]fyne.CanvasObject // the raster each was made for
	// clip is the scissor box of the current clipping (x, y, w, h), if
	// clipping; damage that of the damaged area being repainted, if
	// damaging. Paint actions are limited to both.
	clip                  [4]int32
	clipping              bool
	damage                [4]int32
	damaging              bool
	outWidth, outHeight   int // of the frame, in pixels
	lineProgram           ProgramState
	rectangleProgram      ProgramState
	roundRectangleProgram ProgramState
	polygonProgram        ProgramState
	arcProgram            ProgramState
	texScale              float32
	pixScale              float32 // pre-calculate scale*texScale for each draw
}

type ProgramState struct {
	ref        Program
	buff       Buffer
	uniforms   map[string]*UniformState
	attributes map[string]Attribute
}

type UniformState struct {
	ref  Uniform
	prev [4]float32
}

func (p *painter) SetUniform1f(pState ProgramState, name string, v float32) {
	u := pState.uniforms[name]
	if u.prev[0] == v {
		return
	}
	u.prev[0] = v
	p.ctx.Uniform1f(u.ref, v)
}

func (p *painter) SetUniform2f(pState ProgramState, name string, v0, v1 float32) {
	u := pState.uniforms[name]
	if u.prev[0] == v0 && u.prev[1] == v1 {
		return
	}
	u.prev[0] = v0
	u.prev[1] = v1
	p.ctx.Uniform2f(u.ref, v0, v1)
}

func (p *painter) SetUniform4f(pState ProgramState, name string, v0, v1, v2, v3 float32) {
	u := pState.uniforms[name]
	if u.prev[0] == v0 && u.prev[1] == v1 && u.prev[2] == v2 && u.prev[3] == v3 {
		return
	}
	u.prev[0] = v0
	u.prev[1] = v1
	u.prev[2] = v2
	u.prev[3] = v3
	p.ctx.Uniform4f(u.ref, v0, v1, v2, v3)
}

func (p *painter) UpdateVertexArray(pState ProgramState, name string, size, stride, offset int) {
	a := pState.attributes[name]

	p.ctx.VertexAttribPointerWithOffset(a, size, float, false, stride*floatSize, offset*floatSize)
	p.logError()
}

// Declare conformity to Painter interface
var _ Painter = (*painter)(nil)

func (p *painter) Clear() {
	r, g, b, a := theme.Color(theme.ColorNameBackground).RGBA()
	p.ctx.ClearColor(float32(r)/max16bit, float32(g)/max16bit, float32(b)/max16bit, float32(a)/max16bit)
	p.ctx.Clear(bitColorBuffer | bitDepthBuffer)
	p.logError()
}

func (p *painter) Free(obj fyne.CanvasObject) {
	p.freeTexture(obj)
}

func (p *painter) Paint(obj fyne.CanvasObject, pos fyne.Position, frame fyne.Size) {
	if obj.Visible() {
		p.drawObject(obj, pos, frame)
	}
}

func (p *painter) SetFrameBufferScale(scale float32) {
	p.texScale = scale
	p.pixScale = p.canvas.Scale() * p.texScale
}

func (p *painter) SetOutputSize(width, height int) {
	p.outWidth, p.outHeight = width, height
	p.ctx.Viewport(0, 0, width, height)
	p.logError()
}

func (p *painter) StartClipping(pos fyne.Position, size fyne.Size) {
	x := p.textureScale(pos.X)
	y := p.textureScale(p.canvas.Size().Height - pos.Y - size.Height)
	w := p.textureScale(size.Width)
	h := p.textureScale(size.Height)
	p.clipping, p.clip = true, [4]int32{int32(x), int32(y), int32(w), int32(h)}
	p.applyScissor()
}

func (p *painter) StopClipping() {
	p.clipping = false
	p.applyScissor()
}

func (p *painter) SetDamage(x, y, w, h int32) {
	frame := [4]int32{0, 0, int32(p.outWidth), int32(p.outHeight)}
	p.damaging, p.damage = true, intersect([4]int32{x, y, w, h}, frame)
	p.applyScissor()
}

func (p *painter) ClearDamage() {
	p.damaging = false
	p.applyScissor()
}

// scissor is the box paint actions are limited to (x, y, w, h), if any:
// the clipping's, the damage's, or where they meet.
func (p *painter) scissor() ([4]int32, bool) {
	switch {
	case p.clipping && p.damaging:
		return intersect(p.clip, p.damage), true
	case p.clipping:
		return p.clip, true
	case p.damaging:
		return p.damage, true
	}
	return [4]int32{}, false
}

// intersect is where boxes a and b (x, y, w, h) meet: a box of no width or
// no height if they do not.
func intersect(a, b [4]int32) [4]int32 {
	x0, y0 := max32(a[0], b[0]), max32(a[1], b[1])
	x1, y1 := min32(a[0]+a[2], b[0]+b[2]), min32(a[1]+a[3], b[1]+b[3])
	return [4]int32{x0, y0, max32(x1-x0, 0), max32(y1-y0, 0)}
}

// applyScissor sets GL's scissor test to p.scissor.
func (p *painter) applyScissor() {
	box, on := p.scissor()
	if !on {
		p.ctx.Disable(scissorTest)
		p.logError()
		return
	}
	p.ctx.Scissor(box[0], box[1], box[2], box[3])
	p.ctx.Enable(scissorTest)
	p.logError()
}

func (p *painter) compileShader(source string, shaderType uint32) (Shader, error) {
	shader := p.ctx.CreateShader(shaderType)

	p.ctx.ShaderSource(shader, source)
	p.logError()
	p.ctx.CompileShader(shader)
	p.logError()

	info := p.ctx.GetShaderInfoLog(shader)
	if p.ctx.GetShaderi(shader, compileStatus) == glFalse {
		return noShader, fmt.Errorf("failed to compile OpenGL shader:\n%s\n>>> SHADER SOURCE\n%s\n<<< SHADER SOURCE", info, source)
	}

	// The info is probably a null terminated string.
	// An empty info has been seen as "\x00" or "\x00\x00".
	if len(info) > 0 && info != "\x00" && info != "\x00\x00" {
		fmt.Printf("OpenGL shader compilation output:\n%s\n>>> SHADER SOURCE\n%s\n<<< SHADER SOURCE\n", info, source)
	}

	return shader, nil
}

func (p *painter) createProgram(shaderFilename string) Program {
	// Why a switch over a filename?
	// Because this allows for a minimal change, once we reach Go 1.16 and use go:embed instead of
	// fyne bundle.
	vertexSrc, fragmentSrc := shaderSourceNamed(shaderFilename)
	if vertexSrc == nil {
		panic("shader not found: " + shaderFilename)
	}

	vertShader, err := p.compileShader(string(vertexSrc), vertexShader)
	if err != nil {
		panic(err)
	}
	fragShader, err := p.compileShader(string(fragmentSrc), fragmentShader)
	if err != nil {
		panic(err)
	}

	prog := p.ctx.CreateProgram()
	p.ctx.AttachShader(prog, vertShader)
	p.ctx.AttachShader(prog, fragShader)
	p.ctx.LinkProgram(prog)

	info := p.ctx.GetProgramInfoLog(prog)
	if p.ctx.GetProgrami(prog, linkStatus) == glFalse {
		panic(fmt.Errorf("failed to link OpenGL program:\n%s", info))
	}

	// The info is probably a null terminated string.
	// An empty info has been seen as "\x00" or "\x00\x00".
	if len(info) > 0 && info != "\x00" && info != "\x00\x00" {
		fmt.Printf("OpenGL program linking output:\n%s\n", info)
	}

	if glErr := p.ctx.GetError(); glErr != 0 {
		panic(fmt.Sprintf("failed to link OpenGL program; error code: %x", glErr))
	}

	p.ctx.UseProgram(prog)

	return prog
}

func (p *painter) logError() {
	logGLError(p.ctx.GetError)
}
