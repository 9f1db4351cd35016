//go:build unix

package redistest

import "syscall"

func (s *Server) pause() error  { return s.cmd.Process.Signal(syscall.SIGSTOP) }
func (s *Server) resume() error { return s.cmd.Process.Signal(syscall.SIGCONT) }
