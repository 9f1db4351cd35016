package envelope

import "sync/atomic"

// Overlay is a layer's own envelope options over the renderer of the
// chain the layer runs in, so that what the layer renders (a refusal, a
// validation failure) gets the chain's configuration plus the layer's own,
// as [Renderer.With] combines them. A layer builds its Overlay once, at
// construction, and asks it for the renderer of each call: the renderer
// derived for the last chain is kept, so a layer serving one chain derives
// it once and answers later calls without allocating.
//
// A nil *Overlay, or one without options, adds nothing. An Overlay is safe
// for concurrent use.
type Overlay struct {
	opts []Option
	last atomic.Pointer[overlaid]
}

type overlaid struct{ base, r *Renderer }

// NewOverlay returns the overlay of opts; nil without options.
func NewOverlay(opts ...Option) *Overlay {
	if len(opts) == 0 {
		return nil
	}
	return &Overlay{opts: opts}
}

// On returns base with the overlay's options added (base.With(opts...)).
func (o *Overlay) On(base *Renderer) *Renderer {
	if o == nil {
		return base
	}
	if l := o.last.Load(); l != nil && l.base == base {
		return l.r
	}
	r := base.With(o.opts...)
	o.last.Store(&overlaid{base: base, r: r})
	return r
}

// Options returns the overlay's options; nil for a nil overlay.
func (o *Overlay) Options() []Option {
	if o == nil {
		return nil
	}
	return o.opts
}
