package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// maxRedirects bounds a chain of redirects, as net/http's default policy
// does.
const maxRedirects = 10

// redirectPolicy is the CheckRedirect of the audit's HTTP client. The probe
// calls tools, so the audit sends its requests only to the address (scheme,
// host as given, port) of --url: a redirect elsewhere is refused before
// anything is sent there, unless follow (--follow-redirects) allows another
// loopback address. A redirect off loopback is refused either way, as --url
// itself would be. refused, when not nil, is told each refusal.
func redirectPolicy(start *url.URL, follow bool, refused func(error)) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		err := checkRedirect(start, follow, req, via)
		if err != nil && refused != nil {
			refused(err)
		}
		return err
	}
}

func checkRedirect(start *url.URL, follow bool, req *http.Request, via []*http.Request) error {
	from := start.Redacted()
	if len(via) > 0 {
		from = via[len(via)-1].URL.Redacted()
	}
	to := req.URL.Redacted()
	switch {
	case len(via) >= maxRedirects:
		return fmt.Errorf("the server at %s redirected %d times; stopped after %d redirects", from, len(via), maxRedirects)
	case loopbackURL(req.URL) != nil:
		return fmt.Errorf("the server at %s redirected to %s, which is not a loopback address; mcpguard-audit only connects to servers on this machine, --follow-redirects or not, and sent nothing there", from, to)
	case !follow && !sameAddress(start, req.URL):
		return fmt.Errorf("the server at %s redirected to %s, off the scheme, host and port of --url; mcpguard-audit sent nothing there (to audit the server there, pass its URL, or --follow-redirects to follow redirects to other loopback addresses)", from, to)
	}
	return nil
}

// sameAddress reports whether a and b have the same scheme, host (as
// written, case aside) and port, the scheme's default port made explicit.
func sameAddress(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// refusals keeps the first redirect the audit refused and stops the run
// there: what the client then reports (a failed initialize, a tool call
// without an answer) is a consequence, and the refusal is the reason.
type refusals struct {
	mu    sync.Mutex
	first error
	stop  context.CancelFunc
}

func (r *refusals) refuse(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.first == nil {
		r.first = err
		r.stop()
	}
}

// err returns the first refusal, or nil.
func (r *refusals) err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.first
}
