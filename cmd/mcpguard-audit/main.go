// Command mcpguard-audit checks any MCP server, in any language, against the
// agent-readiness rules — namespaced names (A), intent-oriented
// descriptions (B), strict schemas (C), structured error envelopes (D),
// consistent annotations (E) and no tool poisoning (F) — plus a pinned
// baseline and a stable, bounded tools/list, and prints a score per rule
// and the findings grouped by tool, as text, JSON, SARIF 2.1.0 or
// Markdown.
//
// Usage:
//
//	mcpguard-audit [flags] -- command [args...]       a server started over stdio
//	mcpguard-audit [flags] --url http://127.0.0.1:PORT/mcp   a streamable HTTP server on loopback
//
// Flags:
//
//	--format F         text (default), json, sarif or markdown
//	--json             the same as --format=json
//	--sarif-uri PATH   with --format=sarif: the file results are located in
//	                   (GitHub code scanning lists only located results)
//	--write F=FILE     also write the report in format F to FILE (repeatable)
//	--baseline FILE    write the tool definitions, pinned as sent, to FILE:
//	                   the lock mcpguard-proxy --pin FILE enforces
//	--check-baseline FILE  report tools added, removed or changed since FILE
//	--ignore FILE      accepted findings, each with a reason (JSON)
//	--max-tokens N     token budget of the tool list (default 15000)
//	--deadline D       bound on the whole run (default 5m)
//	--max-message N, --max-list-bytes N, --max-pages N, --max-tools N,
//	--max-findings N   bounds on what a server can make the audit read and list
//	--probe            check rule D: call each tool with arguments its own
//	                   schema rejects (never a valid call)
//	--fail-on LEVEL    error (default), warning, info or none: the lowest
//	                   severity that makes the exit status 1
//	--prefix P         the namespace prefix every tool must carry (default: detected)
//	--skip a,b         tools the probe must never call
//	--timeout D        bound on each probe call (default 10s)
//	--connect-timeout D  bound on starting, initializing and listing (default 60s)
//	--name N           the server's name in the report (default: its serverInfo)
//	--follow-redirects with --url: follow redirects to other loopback addresses
//	                   (by default the audit sends nothing off the scheme, host
//	                   and port of --url: a redirect elsewhere ends the run, exit 2)
//	--stderr           pass the stdio server's stderr through
//
// Exit status: 0 when no finding reaches --fail-on, 1 when one does, 2 on a
// usage error or when the server cannot be reached.
//
// The probe never sends a call the tool's own input schema accepts: every
// call is validated against that schema before it is sent, and a tool that
// admits no invalid call is never called. See package
// github.com/mcpguard/mcpguard/audit for the rules and their rationale.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/audit"
)

const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

type config struct {
	json, probe, passStderr bool
	followRedirects         bool
	version                 bool
	format, sarifURI        string
	baseline, checkBaseline string
	ignore                  string
	tokens                  int
	also                    outputs
	failOn                  string
	prefix, skip, url, name string
	timeout, connectTimeout time.Duration
	deadline                time.Duration
	maxMessage              int
	limits                  audit.Limits
	command                 []string
}

func parse(args []string, stderr io.Writer) (*config, error) {
	var c config
	fs := flag.NewFlagSet("mcpguard-audit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&c.version, "version", false, "print the version this command was built at, and exit")
	fs.BoolVar(&c.json, "json", false, "print the report as JSON (the same as --format=json)")
	fs.StringVar(&c.format, "format", "text", "report format: text, json, sarif or markdown")
	fs.StringVar(&c.sarifURI, "sarif-uri", "", "with --format=sarif: the repository file every result is located in")
	fs.StringVar(&c.baseline, "baseline", "", "write the tool definitions as the server sent them, pinned (RFC 8785 canonical JSON, SHA-256, one line per tool), to this file: the lock mcpguard-proxy --pin enforces")
	fs.StringVar(&c.checkBaseline, "check-baseline", "", "report tools added, removed or changed since the baseline in this file")
	fs.StringVar(&c.ignore, "ignore", "", "JSON file of accepted findings, each with a reason")
	fs.Var(&c.also, "write", "also write the report as FORMAT=FILE (repeatable), e.g. sarif=audit.sarif")
	fs.IntVar(&c.tokens, "max-tokens", audit.DefaultTokenBudget, "token budget of the tool list (list.tokens)")
	fs.BoolVar(&c.probe, "probe", false, "check rule D by calling each tool with arguments its own schema rejects (never a valid call)")
	fs.StringVar(&c.failOn, "fail-on", "error", "lowest severity that fails the run: error, warning, info or none")
	fs.StringVar(&c.prefix, "prefix", "", "namespace prefix every tool name must start with (default: detected)")
	fs.StringVar(&c.skip, "skip", "", "comma-separated tools the probe must never call")
	fs.StringVar(&c.url, "url", "", "streamable HTTP endpoint on loopback, e.g. http://127.0.0.1:8080/mcp")
	fs.BoolVar(&c.followRedirects, "follow-redirects", false, "with --url: follow redirects to other loopback addresses; by default a redirect off the scheme, host and port of --url ends the run (exit 2) and nothing is sent there")
	fs.StringVar(&c.name, "name", "", "server name for the report (default: the server's serverInfo)")
	fs.BoolVar(&c.passStderr, "stderr", false, "pass the stdio server's stderr through")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Second, "bound on each probe call")
	fs.DurationVar(&c.connectTimeout, "connect-timeout", 60*time.Second, "bound on starting, initializing and listing tools")
	fs.DurationVar(&c.deadline, "deadline", audit.DefaultDeadline, "bound on the whole run: start, listing, analysis and probe")
	d := audit.DefaultLimits()
	fs.IntVar(&c.maxMessage, "max-message", defaultMaxMessage, "bound in bytes on any one message from the server")
	fs.IntVar(&c.limits.ListBytes, "max-list-bytes", d.ListBytes, "bound in bytes on all tool definitions together")
	fs.IntVar(&c.limits.Pages, "max-pages", d.Pages, "bound on the number of tools/list pages")
	fs.IntVar(&c.limits.Tools, "max-tools", d.Tools, "bound on the number of tools")
	fs.IntVar(&c.limits.FindingsPerRule, "max-findings", d.FindingsPerRule, "findings listed per rule; the rest are counted")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage:\n  mcpguard-audit [flags] -- command [args...]\n  mcpguard-audit [flags] --url http://127.0.0.1:PORT/mcp\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	c.command = fs.Args()
	if c.version {
		return &c, nil
	}
	switch {
	case c.url == "" && len(c.command) == 0:
		return nil, errors.New("name a server: -- command [args...] or --url")
	case c.url != "" && len(c.command) > 0:
		return nil, errors.New("give either --url or a command, not both")
	case c.timeout <= 0 || c.connectTimeout <= 0 || c.deadline <= 0:
		return nil, errors.New("timeouts and the deadline must be positive")
	case c.tokens <= 0:
		return nil, errors.New("--max-tokens must be positive")
	case c.maxMessage <= 0 || c.limits.ListBytes <= 0 || c.limits.Pages <= 0 || c.limits.Tools <= 0 || c.limits.FindingsPerRule <= 0:
		return nil, errors.New("the --max-* limits must be positive")
	}
	if c.json {
		if c.format != "text" && c.format != "json" {
			return nil, fmt.Errorf("--json and --format=%s contradict each other", c.format)
		}
		c.format = "json"
	}
	if !formats[c.format] {
		return nil, fmt.Errorf("--format=%s: want text, json, sarif or markdown", c.format)
	}
	if c.url != "" {
		if err := loopback(c.url); err != nil {
			return nil, err
		}
	}
	if c.failOn != "none" {
		if _, err := audit.ParseSeverity(c.failOn); err != nil {
			return nil, err
		}
	}
	if c.prefix != "" {
		if err := safeOption(func() { audit.WithPrefix(c.prefix) }); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

// loopback accepts only http(s) URLs whose host is localhost or a loopback
// address: the probe calls tools, so it must only reach a server the user
// runs locally.
func loopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("--url: %v", err)
	}
	if err := loopbackURL(u); err != nil {
		return fmt.Errorf("--url: %w", err)
	}
	return nil
}

// loopbackURL is loopback for a parsed URL, also what a redirect may lead
// to with --follow-redirects.
func loopbackURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme must be http or https, not %q", u.Scheme)
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%q is not a loopback address; mcpguard-audit only connects to servers on this machine (localhost, 127.0.0.0/8, ::1)", host)
}

func safeOption(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	f()
	return nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		failf(stderr, err)
		return exitUsage
	}
	if c.version {
		fmt.Fprintln(stdout, "mcpguard-audit", displayVersion())
		return exitOK
	}
	opts, err := fileOptions(c)
	if err != nil {
		failf(stderr, err)
		return exitUsage
	}
	report, err := auditServer(ctx, c, opts...)
	if err != nil {
		failf(stderr, err)
		return exitUsage
	}
	if c.baseline != "" {
		base, err := report.Baseline()
		if err == nil {
			err = writeFile(c.baseline, base.Write)
		}
		if err != nil {
			failf(stderr, fmt.Errorf("--baseline %s: %w", c.baseline, err))
			return exitUsage
		}
	}
	if err := write(report, c.format, c.sarifURI, stdout); err != nil {
		failf(stderr, err)
		return exitUsage
	}
	for _, o := range c.also {
		if err := writeFile(o.file, func(w io.Writer) error { return write(report, o.format, c.sarifURI, w) }); err != nil {
			failf(stderr, fmt.Errorf("--write %s=%s: %w", o.format, o.file, err))
			return exitUsage
		}
	}
	if c.failOn != "none" && report.Failed() {
		return exitFindings
	}
	return exitOK
}

// formats are the report formats.
var formats = map[string]bool{"text": true, "json": true, "sarif": true, "markdown": true}

// output is one --write FORMAT=FILE.
type output struct{ format, file string }

// outputs collects --write flags.
type outputs []output

func (o *outputs) String() string { return fmt.Sprint(*o) }

func (o *outputs) Set(v string) error {
	format, file, ok := strings.Cut(v, "=")
	if !ok || file == "" || !formats[format] {
		return fmt.Errorf("want FORMAT=FILE with FORMAT text, json, sarif or markdown, not %q", v)
	}
	*o = append(*o, output{format, file})
	return nil
}

// write prints the report in a format.
func write(r *audit.Report, format, sarifURI string, w io.Writer) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "sarif":
		return r.WriteSARIF(w, audit.SARIFOptions{ToolVersion: version(), ArtifactURI: sarifURI})
	case "markdown":
		return r.WriteMarkdown(w)
	}
	return r.WriteText(w)
}

// version is the command's module version, when it was built from one
// (go install ...@v1.2.3).
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return ""
}

// displayVersion is version(), or "(devel)" for a build from a checkout,
// which carries no module version.
func displayVersion() string {
	if v := version(); v != "" {
		return v
	}
	return "(devel)"
}

// fileOptions reads --check-baseline and --ignore.
func fileOptions(c *config) ([]audit.Option, error) {
	var opts []audit.Option
	if c.checkBaseline != "" {
		f, err := os.Open(c.checkBaseline)
		if err != nil {
			return nil, fmt.Errorf("--check-baseline: %w", err)
		}
		defer f.Close()
		b, err := audit.ReadBaseline(f)
		if err != nil {
			return nil, fmt.Errorf("--check-baseline %s: %w", c.checkBaseline, err)
		}
		opts = append(opts, audit.WithBaseline(b))
	}
	if c.ignore != "" {
		f, err := os.Open(c.ignore)
		if err != nil {
			return nil, fmt.Errorf("--ignore: %w", err)
		}
		defer f.Close()
		ig, err := audit.ReadIgnore(f)
		if err != nil {
			return nil, fmt.Errorf("--ignore %s: %w", c.ignore, err)
		}
		opts = append(opts, audit.WithIgnore(ig))
	}
	return opts, nil
}

// writeFile writes a file through a temporary one, so that a failed run
// never leaves half a baseline.
func writeFile(name string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), ".mcpguard-audit-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil { // a file to commit, not a secret
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// defaultMaxMessage bounds one message from the server: a tools/list page
// of the default list limit, with room for the JSON-RPC frame.
const defaultMaxMessage = 17 << 20

// failf prints err once prefixed: the audit package prefixes its errors
// with "audit: ", and the command's own prefix says it all.
func failf(stderr io.Writer, err error) {
	fmt.Fprintf(stderr, "mcpguard-audit: %s\n", strings.TrimPrefix(err.Error(), "audit: "))
}

func auditServer(ctx context.Context, c *config, extra ...audit.Option) (*audit.Report, error) {
	ctx, cancel := context.WithTimeout(ctx, c.deadline)
	defer cancel()
	opts := append([]audit.Option{audit.WithTimeout(c.timeout), audit.WithDeadline(c.deadline), audit.WithLimits(c.limits),
		audit.WithTokenBudget(c.tokens)}, extra...)
	if c.failOn != "none" {
		sev, _ := audit.ParseSeverity(c.failOn)
		opts = append(opts, audit.WithFailOn(sev))
	}
	if c.probe {
		opts = append(opts, audit.WithProbe())
	}
	if lang := commandLanguage(c.command); lang != "" {
		opts = append(opts, audit.WithServerLanguage(lang))
	}
	if c.prefix != "" {
		opts = append(opts, audit.WithPrefix(c.prefix))
	}
	if c.skip != "" {
		var names []string
		for _, n := range strings.Split(c.skip, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		opts = append(opts, audit.WithSkip(names...))
	}

	// A refused redirect stops the run at once and is its reason.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	refused := &refusals{stop: stop}
	cl, explain, err := connect(ctx, c, refused)
	if err != nil {
		return nil, firstOf(refused.err(), err)
	}
	defer cl.Close()

	cctx, ccancel := context.WithTimeout(ctx, c.connectTimeout)
	defer ccancel()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpguard-audit", Version: "1.0.0"}
	res, err := cl.Initialize(cctx, init)
	if err != nil {
		return nil, firstOf(refused.err(), explain(fmt.Errorf("initialize: %w", err)))
	}
	name := c.name
	if name == "" {
		name = strings.TrimSpace(res.ServerInfo.Name + " " + res.ServerInfo.Version)
	}
	opts = append(opts, audit.WithServerName(name))

	r, err := audit.Client(ctx, boundedList{Client: cl.Client, d: c.connectTimeout, sniff: cl.sniff}, opts...)
	if rerr := refused.err(); rerr != nil {
		return nil, rerr
	}
	if err != nil {
		return nil, explain(err)
	}
	return r, nil
}

// firstOf returns the first non-nil error.
func firstOf(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// conn is a connected client, what closes it, and the sniffer that sees
// its JSON-RPC error codes.
type conn struct {
	*client.Client
	close func() error
	sniff *errorSniffer
}

func (c conn) Close() error { return c.close() }

// connect starts the server (stdio) or connects to it (HTTP). explain
// turns a later failure into the clearest error: the message limit that
// cut the stream, and the server's last stderr lines. Over HTTP, refused
// is told every redirect the client refuses (see redirectPolicy).
func connect(ctx context.Context, c *config, refused *refusals) (cl conn, explain func(error) error, err error) {
	errOut := &tail{max: 4096}
	sniff := &errorSniffer{list: listSniffer{max: c.maxMessage}}
	if c.url != "" {
		start, err := url.Parse(c.url)
		if err != nil {
			return conn{}, nil, fmt.Errorf("--url: %w", err)
		}
		hc := &http.Client{
			Transport:     limitedBodies{base: http.DefaultTransport, max: int64(c.maxMessage), sniff: sniff},
			CheckRedirect: redirectPolicy(start, c.followRedirects, refused.refuse),
		}
		hcl, err := client.NewStreamableHttpClient(c.url, transport.WithHTTPBasicClient(hc))
		if err != nil {
			return conn{}, nil, fmt.Errorf("cannot connect: %w", err)
		}
		sctx, cancel := context.WithTimeout(ctx, c.connectTimeout)
		defer cancel()
		if err := hcl.Start(sctx); err != nil {
			_ = hcl.Close()
			return conn{}, nil, fmt.Errorf("cannot connect: %w", err)
		}
		return conn{Client: hcl, close: hcl.Close, sniff: sniff}, func(err error) error { return err }, nil
	}
	var w io.Writer = errOut
	if c.passStderr {
		w = io.MultiWriter(errOut, os.Stderr)
	}
	s, err := startStdio(c.command[0], c.command[1:], w, c.maxMessage, sniff)
	if err != nil {
		return conn{}, nil, fmt.Errorf("cannot start the server: %w", err)
	}
	explain = func(err error) error { return withStderr(s.explain(err), s, errOut) }
	return conn{Client: s.client, close: s.Close, sniff: sniff}, explain, nil
}

// boundedList bounds tools/list by the connect timeout; probe calls get
// their own --timeout from the audit. It lists one page at a time, as the
// server sent it (ListToolsRaw), so the audit counts pages against its
// limits and pins definitions as sent.
type boundedList struct {
	*client.Client
	d     time.Duration
	sniff *errorSniffer
}

// CallTool reports a JSON-RPC error answer with the code the server sent.
func (b boundedList) CallTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return callWithCodes(ctx, b.Client.CallTool, b.sniff, req)
}

func (b boundedList) ListTools(ctx context.Context, req mcp.ListToolsRequest) (*mcp.ListToolsResult, error) {
	ctx, cancel := context.WithTimeout(ctx, b.d)
	defer cancel()
	return b.Client.ListTools(ctx, req)
}

// withStderr adds the server's last stderr lines to err. It closes the
// server first: that waits for it to exit, and with it for the copy of its
// stderr to finish.
func withStderr(err error, server io.Closer, t *tail) error {
	_ = server.Close()
	if s := strings.TrimSpace(t.String()); s != "" {
		return fmt.Errorf("%w\nserver stderr (last lines):\n%s", err, s)
	}
	return err
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
