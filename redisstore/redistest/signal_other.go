//go:build !unix

package redistest

import "errors"

var errNoSignals = errors.New("redistest: Pause and Resume need SIGSTOP and SIGCONT (unix)")

func (s *Server) pause() error  { return errNoSignals }
func (s *Server) resume() error { return nil }
