package hints_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/hints"
)

// item stands in for an SDK's text content item.
type item struct{ text string }

func textItem(s string) item { return item{s} }

func mergeTool(t *testing.T, opts ...hints.Option) *tool {
	t.Helper()
	rules := []rule{hints.For("shop_get",
		hints.OnSuccess[shopReq, *shopRes](hints.Call("shop_track", "to follow the delivery"), hints.Text("Tell the user the price.")))}
	tl := hints.NewRegistry(rules, nil, opts...).Lookup("shop_get")
	require.NotNil(t, tl)
	return tl
}

const (
	stepTrack = "Call shop_track to follow the delivery."
	stepPrice = "Tell the user the price."
)

func TestMergeSuccessAppendsTextAndMeta(t *testing.T) {
	t.Parallel()
	content := make([]item, 1, 4) // spare capacity: an append in place would show
	content[0] = item{"the product"}
	meta := map[string]any{"trace": "t-1", hints.MetaKey: []any{"Handler's own step.", stepPrice, 7}}
	gotContent, gotMeta, ok := hints.MergeSuccess(context.Background(), mergeTool(t), shopReq{}, &shopRes{}, content, meta, textItem)
	require.True(t, ok)
	assert.Equal(t, []item{{"the product"}, {"Next steps:\n- " + stepTrack + "\n- " + stepPrice}}, gotContent)
	assert.Equal(t, map[string]any{
		"trace":       "t-1",
		hints.MetaKey: []string{stepTrack, stepPrice, "Handler's own step."},
	}, gotMeta, "the tool's steps first, the handler's after, once each")

	assert.Equal(t, item{}, content[:2][1], "the handler's content is not written to")
	assert.Equal(t, []any{"Handler's own step.", stepPrice, 7}, meta[hints.MetaKey], "the handler's _meta is not modified")
	assert.Len(t, meta, 2)
}

func TestMergeSuccessWithoutMeta(t *testing.T) {
	t.Parallel()
	_, gotMeta, ok := hints.MergeSuccess(context.Background(), mergeTool(t), shopReq{}, &shopRes{}, nil, nil, textItem)
	require.True(t, ok)
	assert.Equal(t, map[string]any{hints.MetaKey: []string{stepTrack, stepPrice}}, gotMeta)
}

func TestMergeSuccessWithoutSuccessText(t *testing.T) {
	t.Parallel()
	content := []item{{"the product"}}
	gotContent, gotMeta, ok := hints.MergeSuccess(context.Background(), mergeTool(t, hints.WithoutSuccessText()), shopReq{}, &shopRes{}, content, nil, textItem)
	require.True(t, ok)
	assert.Equal(t, content, gotContent, "the content is left as it was")
	assert.Equal(t, []string{stepTrack, stepPrice}, gotMeta[hints.MetaKey])
}

func TestMergeSuccessWithoutSteps(t *testing.T) {
	t.Parallel()
	rules := []rule{hints.For("shop_get", hints.OnSuccessFunc(func(context.Context, shopReq, *shopRes) []hints.Step { return nil }))}
	tl := hints.NewRegistry(rules, nil).Lookup("shop_get")
	content, meta := []item{{"x"}}, map[string]any{"k": "v"}
	gotContent, gotMeta, ok := hints.MergeSuccess(context.Background(), tl, shopReq{}, &shopRes{}, content, meta, textItem)
	assert.False(t, ok)
	assert.Equal(t, content, gotContent)
	assert.Equal(t, meta, gotMeta)
}
