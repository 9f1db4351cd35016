package envelope_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
)

var (
	errGone  = errors.New("gone")
	errTaken = errors.New("taken")
)

func codeOf(r *envelope.Renderer, err error) envelope.Code {
	return r.Error(context.Background(), envelope.Call{Tool: "shop_search"}, err).ErrorType
}

// With adds to the renderer's configuration: the base's mappings are
// tried first and still apply, default next steps are replaced for the
// code given only, a setting replaces the base's, and the base is left as
// it was.
func TestWithAddsToTheConfiguration(t *testing.T) {
	t.Parallel()
	base := envelope.NewRenderer(
		envelope.WithMapping(errGone, envelope.NotFound),
		envelope.WithDefaultNextSteps(envelope.NotFound, "Search first."),
		envelope.WithInternalMessage("Base message."),
	)
	assert.Same(t, base, base.With(), "no options: the base itself")

	r := base.With(
		envelope.WithMapping(errTaken, envelope.AccessDenied),
		envelope.WithMapping(errGone, envelope.AccessDenied), // tried after the base's
		envelope.WithDefaultNextSteps(envelope.AccessDenied, "Pick another name."),
		envelope.WithToolFailureMeta(),
	)
	require.NotSame(t, base, r)
	assert.Equal(t, envelope.NotFound, codeOf(r, errGone), "the base's mapping wins")
	assert.Equal(t, envelope.AccessDenied, codeOf(r, errTaken), "the added mapping")
	assert.Equal(t, []string{"Search first."}, r.DefaultNextSteps(envelope.NotFound, ""), "the base's steps for other codes")
	assert.Equal(t, []string{"Pick another name."}, r.DefaultNextSteps(envelope.AccessDenied, ""))
	assert.Equal(t, "Base message. Incident ID: inc-1.", r.Internal("shop_search", "inc-1").Message, "the base's settings the layer does not give")
	_, meta := r.FailureMeta(&envelope.Envelope{ErrorType: envelope.AccessDenied})
	assert.True(t, meta, "the added setting")

	assert.Equal(t, envelope.InternalError, codeOf(base, errTaken), "the base is unchanged")
	_, meta = base.FailureMeta(&envelope.Envelope{ErrorType: envelope.AccessDenied})
	assert.False(t, meta)
	assert.Equal(t, envelope.DefaultNextSteps(envelope.AccessDenied), base.DefaultNextSteps(envelope.AccessDenied, ""))

	again := r.With(envelope.WithInternalMessage("Layer message."))
	assert.Equal(t, "Layer message. Incident ID: inc-1.", again.Internal("shop_search", "inc-1").Message, "a setting the layer gives replaces the base's")
	assert.Equal(t, envelope.AccessDenied, codeOf(again, errTaken), "options of every level add up")
}

// An Overlay derives the renderer once per base and keeps it; a nil or
// empty one adds nothing.
func TestOverlayKeepsTheRendererOfTheLastBase(t *testing.T) {
	t.Parallel()
	assert.Nil(t, envelope.NewOverlay())
	var none *envelope.Overlay
	a, b := envelope.NewRenderer(), envelope.NewRenderer(envelope.WithMapping(errGone, envelope.NotFound))
	assert.Same(t, a, none.On(a))
	assert.Nil(t, none.Options())

	o := envelope.NewOverlay(envelope.WithMapping(errTaken, envelope.AccessDenied))
	require.Len(t, o.Options(), 1)
	onA := o.On(a)
	assert.NotSame(t, a, onA)
	assert.Same(t, onA, o.On(a), "the same base: the kept renderer")
	onB := o.On(b)
	assert.NotSame(t, onA, onB, "another base: another renderer")
	assert.Equal(t, envelope.NotFound, codeOf(onB, errGone), "the base's configuration")
	assert.Equal(t, envelope.AccessDenied, codeOf(onB, errTaken), "the overlay's")
	assert.Equal(t, envelope.InternalError, codeOf(onA, errGone), "a's renderer has none of b's")
	assert.Same(t, onB, o.On(b))
	assert.NotSame(t, onA, o.On(a), "only the last base is kept")
}

func TestOverlayOnTheSameBaseDoesNotAllocate(t *testing.T) {
	base := envelope.NewRenderer()
	o := envelope.NewOverlay(envelope.WithToolFailureMeta())
	o.On(base)
	if n := testing.AllocsPerRun(100, func() { o.On(base) }); n != 0 {
		t.Errorf("On allocated %v times per call", n)
	}
}
