package hints

import (
	"context"
	"maps"
)

// MergeSuccess decides, for both SDK fronts, what a successful result
// becomes with t's success steps: its content with the text item that
// lists them appended (unless [WithoutSuccessText]), and its _meta fields
// with the steps under [MetaKey], ahead of those a handler already put
// there and de-duplicated with them ([MetaSteps]). item builds the SDK's
// text content item from the text.
//
// Neither content nor meta is modified: the front puts the returned ones
// in a copy of its result. ok is false when no step applies, and the front
// then returns its result itself.
func MergeSuccess[Req, Res, C any](ctx context.Context, t *Tool[Req, Res], req Req, res Res, content []C, meta map[string]any, item func(text string) C) (mergedContent []C, mergedMeta map[string]any, ok bool) {
	steps, text := t.Success(ctx, req, res)
	if len(steps) == 0 {
		return content, meta, false
	}
	mergedContent = content
	if t.o.successText {
		mergedContent = make([]C, 0, len(content)+1)
		mergedContent = append(mergedContent, content...)
		mergedContent = append(mergedContent, item(text))
	}
	mergedMeta = make(map[string]any, len(meta)+1)
	maps.Copy(mergedMeta, meta)
	mergedMeta[MetaKey] = MetaSteps(steps, meta[MetaKey])
	return mergedContent, mergedMeta, true
}
