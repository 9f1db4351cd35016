// Package fields holds what core/validate's binder and core/declared's
// check of a declared schema share, so that both answer a bad call
// alike: the validation_error and its field errors (paths as an agent
// writes them, redacted previews, suggestions, the bounds on their text),
// and the bounds on the arguments both read.
package fields
