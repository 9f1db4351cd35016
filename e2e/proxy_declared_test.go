package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// declaredChildEnv makes the test binary the upstream of
// TestProxyDeclaredSchemas (TestProxyDeclaredUpstreamChild).
const declaredChildEnv = "MCPGUARD_E2E_DECLARED_CHILD"

// keyPattern is an unanchored, key-shaped pattern: on a 1 MiB value RE2
// runs it at its program's size per character, seconds of CPU, where the
// value's maxLength refuses it at the cost of counting its characters.
const keyPattern = `[A-Za-z0-9]{8}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{12}`

// TestProxyDeclaredUpstreamChild is not a test: re-executed by
// TestProxyDeclaredSchemas with declaredChildEnv set, the test binary is
// a go-sdk server on stdio whose low-level tool read_note declares a
// pattern on path and on key, and binds its arguments the way real
// servers do, with encoding/json into a struct (which matches "PATH" to
// the field Path, case-insensitively).
func TestProxyDeclaredUpstreamChild(t *testing.T) {
	if os.Getenv(declaredChildEnv) == "" {
		t.Skip("the upstream of TestProxyDeclaredSchemas, run only by it")
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "read_note", Description: "Read a note.", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"path":{"type":"string","pattern":"^[a-z]+\\.txt$"},
		"key":{"type":"string","maxLength":64,"pattern":"` + keyPattern + `"},
		"user":{"type":"string","pattern":"^\\S+$"}},"required":["path"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Path string `json:"path"`
				Key  string `json:"key"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &a)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "read " + a.Path}}}, nil
		})
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
	os.Exit(0) // before the testing package writes PASS on the client's stream
}

// TestProxyDeclaredSchemas: the mcpguard-proxy binary in front of a real
// go-sdk server enforces the tool's declared schema from the first call,
// before any tools/list (issue 35, case 6), on the JSON the client reads:
//
//   - case 1: {"path":"notes.txt","PATH":"../../etc/passwd"} passes the
//     schema's pattern if PATH is read as an extra member, and the
//     server's encoding/json reads PATH as path: directly, the server
//     reads ../../etc/passwd; through the proxy the call is a
//     validation_error naming PATH, and never reaches the server;
//   - case 3: a 1 MiB key that maxLength already refuses is refused for
//     its length alone (cheap checks first): the one field error is
//     key's maxLength, not its pattern, nor a pattern budget overrun;
//   - a pattern means what JSON Schema says (ECMA-262): ^\S+$ refuses
//     "bob\u00a0admin".
func TestProxyDeclaredSchemas(t *testing.T) {
	t.Parallel()
	proxy := proxyBin(t)
	child := []string{os.Args[0], "-test.run=^TestProxyDeclaredUpstreamChild$"}
	hostile := `{"path":"notes.txt","PATH":"../../etc/passwd"}`

	direct := newLineSession(t, child...)
	if got := direct.call(t, "read_note", hostile); !strings.Contains(got, `read ../../etc/passwd`) {
		t.Fatalf("the control: directly, the server should read PATH as path: %s", got)
	}

	s := newLineSession(t, append([]string{proxy, "--"}, child...)...)
	env := envelopeIn(t, s.call(t, "read_note", hostile))
	if env.ErrorType != "validation_error" || len(env.Fields) != 1 || env.Fields[0].Field != "PATH" || env.Fields[0].Rule != "unknown" || env.Fields[0].Suggestion != "path" {
		t.Errorf("case 1 through the proxy: %+v, want one unknown field PATH suggesting path", env)
	}

	key := strings.Repeat("a", 1<<20-128)
	env = envelopeIn(t, s.call(t, "read_note", `{"path":"notes.txt","key":"`+key+`"}`))
	if env.ErrorType != "validation_error" || len(env.Fields) != 1 || env.Fields[0].Field != "key" || env.Fields[0].Rule != "max" || env.Fields[0].Param != "64" {
		t.Errorf("case 3 through the proxy: %+v, want one field error: key's maxLength of 64", env)
	}
	// The pattern is ECMA-262, where \S is not U+00A0 (Go's own \S is).
	env = envelopeIn(t, s.call(t, "read_note", `{"path":"notes.txt","user":"bob\u00a0admin"}`))
	if env.ErrorType != "validation_error" || len(env.Fields) != 1 || env.Fields[0].Field != "user" || env.Fields[0].Rule != "pattern" {
		t.Errorf("a pattern through the proxy: %+v, want user's pattern", env)
	}
	if got := s.call(t, "read_note", `{"path":"notes.txt"}`); !strings.Contains(got, `read notes.txt`) {
		t.Errorf("a valid call through the proxy: %s", got)
	}
}

// lineSession is a raw stdio client of one server process: it reads the
// response lines as the client receives them.
type lineSession struct {
	in   io.WriteCloser
	r    *bufio.Reader
	next int
}

func newLineSession(t *testing.T, argv ...string) *lineSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), declaredChildEnv+"=1")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Wait(); cancel() })
	s := &lineSession{in: in, r: bufio.NewReaderSize(out, 1<<20)}
	s.request(t, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}`)
	_, _ = io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	return s
}

// request sends one request and returns its response line.
func (s *lineSession) request(t *testing.T, method, params string) string {
	t.Helper()
	s.next++
	id, _ := json.Marshal(s.next)
	if _, err := io.WriteString(s.in, `{"jsonrpc":"2.0","id":`+string(id)+`,"method":"`+method+`","params":`+params+"}\n"); err != nil {
		t.Fatal(err)
	}
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			t.Fatalf("waiting for the answer to %s: %v", method, err)
		}
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && string(m.ID) == string(id) {
			return strings.TrimSpace(line)
		}
	}
}

func (s *lineSession) call(t *testing.T, tool, args string) string {
	t.Helper()
	return s.request(t, "tools/call", `{"name":"`+tool+`","arguments":`+args+`}`)
}

// wireEnvelope is the envelope a client reads from a tool result's text.
type wireEnvelope struct {
	ErrorType string `json:"error_type"`
	Fields    []struct {
		Field, Rule, Param, Suggestion string
	} `json:"fields"`
}

// envelopeIn decodes the envelope of an error result line.
func envelopeIn(t *testing.T, line string) wireEnvelope {
	t.Helper()
	var resp struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	var env wireEnvelope
	if err := json.Unmarshal([]byte(line), &resp); err != nil || !resp.Result.IsError || len(resp.Result.Content) == 0 ||
		json.Unmarshal([]byte(resp.Result.Content[0].Text), &env) != nil {
		t.Fatalf("not an error result with an envelope: %.2000s", line)
	}
	return env
}
