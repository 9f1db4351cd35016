package envelope_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

func failing(err error) server.ToolHandlerFunc {
	return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, err }
}

func returning(res *mcp.CallToolResult) server.ToolHandlerFunc {
	return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil }
}

var shopTool = mcp.NewTool("shop_tool")

// serve puts h behind the envelope layer alone, as the tool "shop_tool".
func serve(t *testing.T, h server.ToolHandlerFunc, opts ...envelope.Option) *middlewaretest.Server {
	t.Helper()
	return middlewaretest.New(t, shopTool, h, envelope.Middleware(opts...))
}

// expect checks the whole wire contract with the public harness (a result,
// isError, a strictly decoded envelope of code naming the tool, with next
// steps, structuredContent equal to the text) and returns the envelope. It
// stops the test when the contract is broken.
func expect(t *testing.T, r *middlewaretest.Result, code envelope.Code) *envelope.Envelope {
	t.Helper()
	r.ExpectError(code)
	if r.Envelope == nil || t.Failed() {
		t.FailNow()
	}
	return r.Envelope
}

func TestSentinelsMapToTheirCodeOnTheWire(t *testing.T) {
	t.Parallel()
	cases := []struct {
		sentinel error
		code     envelope.Code
	}{
		{envelope.ErrAuthenticationFailed, envelope.AuthenticationFailed},
		{envelope.ErrAccessDenied, envelope.AccessDenied},
		{envelope.ErrNotFound, envelope.NotFound},
		{envelope.ErrConfiguration, envelope.ConfigurationError},
		{envelope.ErrValidation, envelope.ValidationError},
		{envelope.ErrExecutionFailed, envelope.ExecutionFailed},
	}
	for _, tc := range cases {
		t.Run(string(tc.code), func(t *testing.T) {
			t.Parallel()
			err := fmt.Errorf("card ATC-2026-000001: %w", tc.sentinel)
			r := serve(t, failing(err)).Call(map[string]any{})
			env := expect(t, r, tc.code)
			assert.Equal(t, "shop_tool", env.Tool)
			assert.Equal(t, err.Error(), env.Message)
			assert.Equal(t, envelope.DefaultNextSteps(tc.code), env.NextSteps)
			assert.False(t, env.Retryable)
			assert.Empty(t, env.IncidentID)
			assert.NotEmpty(t, r.StructuredContent(), "structuredContent mirrors the envelope for tools without an output schema")
		})
	}
}

func TestEveryCodeHasADefaultNextStep(t *testing.T) {
	t.Parallel()
	require.Len(t, envelope.Codes(), 7)
	for _, c := range envelope.Codes() {
		assert.True(t, c.Valid())
		steps := envelope.DefaultNextSteps(c)
		require.NotEmpty(t, steps, c)
		for _, s := range steps {
			assert.NotContains(t, strings.ToLower(s), "try again", "a next step must say more than try again")
		}
	}
	assert.False(t, envelope.Code("teapot").Valid())
}

func TestNewAndWrapKeepTheChain(t *testing.T) {
	t.Parallel()
	base := errors.New("disk quota")
	w := envelope.Wrap(envelope.ExecutionFailed, base)
	assert.ErrorIs(t, w, base)
	assert.ErrorIs(t, w, envelope.ErrExecutionFailed, "a coded error matches its code's sentinel")
	assert.NotErrorIs(t, w, envelope.ErrNotFound)
	var coded *envelope.Error
	require.ErrorAs(t, fmt.Errorf("outer: %w", w), &coded)
	assert.Equal(t, envelope.ExecutionFailed, coded.Code())
	assert.Equal(t, "disk quota", w.Error())

	assert.NoError(t, envelope.Wrap(envelope.NotFound, nil))
	assert.Equal(t, envelope.InternalError, envelope.CodeOf(envelope.New("bogus", "x")), "an invalid code never invents a new type")
	assert.Equal(t, envelope.NotFound, envelope.CodeOf(fmt.Errorf("a: %w", envelope.New(envelope.NotFound, "no card"))))
	assert.Equal(t, envelope.InternalError, envelope.CodeOf(errors.New("plain")))
	assert.Equal(t, envelope.Code(""), envelope.CodeOf(nil))
	assert.ErrorIs(t, envelope.New(envelope.NotFound, "no card"), envelope.ErrNotFound)
}

func TestCodeTextRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range envelope.Codes() {
		b, err := c.MarshalText()
		require.NoError(t, err)
		var back envelope.Code
		require.NoError(t, back.UnmarshalText(b))
		assert.Equal(t, c, back)
	}
	_, err := envelope.Code("INVALID_ARGUMENT").MarshalText()
	assert.Error(t, err)
	var c envelope.Code
	assert.Error(t, c.UnmarshalText([]byte("nope")))
}

func TestUserSentinelMapping(t *testing.T) {
	t.Parallel()
	s := serve(t, failing(fmt.Errorf("load card: %w", sql.ErrNoRows)), envelope.WithMapping(sql.ErrNoRows, envelope.NotFound))
	env := expect(t, s.Call(nil), envelope.NotFound)
	assert.Equal(t, "load card: sql: no rows in result set", env.Message)
}

type pgError struct{ Code, Msg string }

func (e *pgError) Error() string { return "pq: " + e.Msg }

func TestMapperForErrorTypes(t *testing.T) {
	t.Parallel()
	mapper := envelope.WithMapper(func(err error) (envelope.Code, bool) {
		var pg *pgError
		if errors.As(err, &pg) && pg.Code == "42P01" {
			return envelope.ExecutionFailed, true
		}
		return "", false
	})
	s := serve(t, failing(fmt.Errorf("query: %w", &pgError{"42P01", `relation "users" does not exist`})), mapper)
	env := expect(t, s.Call(nil), envelope.ExecutionFailed)
	assert.Equal(t, `query: pq: relation "users" does not exist`, env.Message, "the agent needs the database's words to fix its SQL")
}

func TestExplicitCodeWinsOverMappings(t *testing.T) {
	t.Parallel()
	err := envelope.Wrap(envelope.AccessDenied, sql.ErrNoRows)
	s := serve(t, failing(err), envelope.WithMapping(sql.ErrNoRows, envelope.NotFound))
	expect(t, s.Call(nil), envelope.AccessDenied)
}

func TestPanickingMapperBecomesAnIncident(t *testing.T) {
	t.Parallel()
	logs := middlewaretest.NewLog(t)
	s := serve(t, failing(errors.New("boom")),
		envelope.WithLogger(logs.Logger()),
		envelope.WithMapper(func(error) (envelope.Code, bool) { panic("mapper bug at /srv/app/map.go:12") }))
	r := s.Call(nil)
	expect(t, r, envelope.InternalError)
	r.NoLeak("mapper bug", "boom")
	rec := logs.ExpectIncident(r, "mapper bug")
	require.NotNil(t, rec, "the incident is logged under the ID the client got")
	assert.Contains(t, rec["panic"], "mapper bug")
}

func TestTimeoutsAreRetryableExecutionFailures(t *testing.T) {
	t.Parallel()
	for _, cause := range []error{context.DeadlineExceeded, context.Canceled} {
		s := serve(t, failing(fmt.Errorf("query orders: %w", cause)))
		env := expect(t, s.Call(nil), envelope.ExecutionFailed)
		assert.True(t, env.Retryable)
		assert.Contains(t, env.NextSteps[0], "timed out")
	}
}

func TestUnknownErrorIsAnIncidentWithNothingLeaked(t *testing.T) {
	t.Parallel()
	logs := middlewaretest.NewLog(t)
	secret := "postgres://app:hunter2@db.internal:5432/shop"
	s := serve(t, failing(fmt.Errorf("connect %s: refused", secret)), envelope.WithLogger(logs.Logger()))
	r := s.Call(nil)
	env := expect(t, r, envelope.InternalError)
	assert.True(t, env.Retryable)
	assert.Regexp(t, `^inc_[0-9a-f]{16}$`, env.IncidentID)
	assert.Contains(t, env.Message, env.IncidentID)
	assert.Contains(t, strings.Join(env.NextSteps, " "), env.IncidentID)
	r.NoLeak("hunter2", "db.internal", "refused")
	rec := logs.ExpectIncident(r, "hunter2")
	require.NotNil(t, rec)
	assert.Contains(t, rec["error"], "hunter2", "the server log keeps the full detail")
	assert.Equal(t, "shop_tool", rec["tool"])
}

func TestCodedMessagesAreRedactedButReadable(t *testing.T) {
	t.Parallel()
	err := envelope.Wrap(envelope.ExecutionFailed, errors.New(`dial postgres://app:hunter2@db:5432/shop: relation "users" does not exist at /srv/shop/db.go:88`))
	r := serve(t, failing(err)).Call(nil)
	env := expect(t, r, envelope.ExecutionFailed)
	r.NoLeak("hunter2", "/srv/shop")
	assert.Contains(t, env.Message, `relation "users" does not exist`)
	assert.Contains(t, env.Message, "postgres://app:[REDACTED]@db:5432")
}

func TestHandBuiltErrorResultsAreNormalized(t *testing.T) {
	t.Parallel()
	t.Run("plain text", func(t *testing.T) {
		t.Parallel()
		env := expect(t, serve(t, returning(mcp.NewToolResultError("the export stopped halfway through \"users\""))).Call(nil), envelope.ExecutionFailed)
		assert.Equal(t, `the export stopped halfway through "users"`, env.Message)
		assert.Equal(t, envelope.DefaultNextSteps(envelope.ExecutionFailed), env.NextSteps)
	})
	t.Run("seed-style coded JSON", func(t *testing.T) {
		t.Parallel()
		text := `{"success":false,"error":"INVALID_ARGUMENT","tool":"search_skills","message":"Invalid card_id"}`
		env := expect(t, serve(t, returning(mcp.NewToolResultError(text))).Call(nil), envelope.ValidationError)
		assert.Equal(t, "Invalid card_id", env.Message)
	})
	t.Run("secret in text", func(t *testing.T) {
		t.Parallel()
		serve(t, returning(mcp.NewToolResultError("auth with Bearer abcdefghijklmnopqrstuvwxyz failed"))).Call(nil).
			ExpectError(envelope.ExecutionFailed).NoLeak("abcdefghijklmnopqrstuvwxyz")
	})
	t.Run("handler says internal", func(t *testing.T) {
		t.Parallel()
		r := serve(t, returning(mcp.NewToolResultError(`{"error":"INTERNAL","message":"nil deref in cache.go"}`))).Call(nil)
		env := expect(t, r, envelope.InternalError)
		assert.NotEmpty(t, env.IncidentID)
		r.NoLeak("nil deref")
	})
	t.Run("opt out", func(t *testing.T) {
		t.Parallel()
		r := serve(t, returning(mcp.NewToolResultError("raw")), envelope.WithoutNormalization()).Call(nil)
		assert.True(t, r.IsError())
		assert.Nil(t, r.Envelope)
		assert.Equal(t, "raw", r.Text())
	})
}

func TestNilResultAndNilErrorIsAnInternalError(t *testing.T) {
	t.Parallel()
	expect(t, serve(t, returning(nil)).Call(nil), envelope.InternalError)
}

func TestSuccessPassesThroughUntouched(t *testing.T) {
	want := mcp.NewToolResultText("ok")
	h := envelope.Middleware()(returning(want))
	got, err := h(context.Background(), mcp.CallToolRequest{})
	require.NoError(t, err)
	assert.Same(t, want, got)
	allocs := testing.AllocsPerRun(1000, func() { _, _ = h(context.Background(), mcp.CallToolRequest{}) })
	assert.Zero(t, allocs, "the success path must not allocate")
}

type out struct {
	Total int `json:"total"`
}

func TestToolWithOutputSchemaGetsNoStructuredContent(t *testing.T) {
	t.Parallel()
	s := middlewaretest.New(t, mcp.NewTool("shop_count", mcp.WithOutputSchema[out]()), failing(envelope.ErrNotFound), envelope.Middleware())
	s.MCPServer().AddTool(mcp.NewTool("shop_plain"), failing(envelope.ErrNotFound))
	r := s.Call(nil)
	expect(t, r, envelope.NotFound)
	assert.Empty(t, r.StructuredContent(), "strict clients would validate it against the output schema")
	r = s.CallTool("shop_plain", nil)
	expect(t, r, envelope.NotFound)
	assert.NotEmpty(t, r.StructuredContent())

	// mcp-go's own output validation accepts the error result too.
	strict := server.NewMCPServer("strict", "1", server.WithToolCapabilities(false), server.WithOutputSchemaValidation())
	strict.Use(envelope.Middleware())
	strict.AddTool(mcp.NewTool("shop_count", mcp.WithOutputSchema[out]()), failing(envelope.ErrNotFound))
	expect(t, middlewaretest.FromServer(t, strict).CallTool("shop_count", nil), envelope.NotFound)
}

func TestProtocolErrorsStayProtocolErrors(t *testing.T) {
	t.Parallel()
	s := serve(t, failing(errors.New("x")))
	s.CallTool("no_such_tool", nil).ExpectProtocolError(mcp.INVALID_PARAMS)

	out := s.MCPServer().HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`))
	require.IsType(t, mcp.JSONRPCError{}, out, "a malformed request is a protocol error")

	elicit := mcp.URLElicitationRequiredError{Elicitations: []mcp.ElicitationParams{}}
	r := serve(t, failing(elicit)).Call(nil)
	require.NotNil(t, r.ProtocolError, "URL elicitation belongs to the protocol and passes through: %s", r.Raw)
	assert.Equal(t, mcp.URL_ELICITATION_REQUIRED, r.ProtocolError.Code)
}

func TestDecorations(t *testing.T) {
	t.Parallel()
	base := fmt.Errorf("session expired: %w", envelope.ErrAuthenticationFailed)
	t.Run("next steps come first and are de-duplicated", func(t *testing.T) {
		t.Parallel()
		err := envelope.AddNextSteps(
			envelope.AddNextSteps(base, "Call shop_authenticate with your API key, then retry.", envelope.DefaultNextSteps(envelope.AuthenticationFailed)[0]),
			"Outer step first.")
		env := expect(t, serve(t, failing(err)).Call(nil), envelope.AuthenticationFailed)
		assert.Equal(t, []string{
			"Outer step first.",
			"Call shop_authenticate with your API key, then retry.",
			envelope.DefaultNextSteps(envelope.AuthenticationFailed)[0],
		}, env.NextSteps)
		assert.Equal(t, "session expired: authentication failed", env.Message, "decorations do not change the message")
	})
	t.Run("replace", func(t *testing.T) {
		t.Parallel()
		env := expect(t, serve(t, failing(envelope.ReplaceNextSteps(base, "Only this."))).Call(nil), envelope.AuthenticationFailed)
		assert.Equal(t, []string{"Only this."}, env.NextSteps)
	})
	t.Run("fields and retryable", func(t *testing.T) {
		t.Parallel()
		err := envelope.SetRetryable(envelope.AddFields(envelope.New(envelope.ValidationError, "1 argument is invalid"),
			envelope.FieldError{Field: "limit", Rule: "max", Param: "50", Message: "limit must be at most 50"}), true)
		env := expect(t, serve(t, failing(err)).Call(nil), envelope.ValidationError)
		require.Len(t, env.Fields, 1)
		assert.Equal(t, "limit", env.Fields[0].Field)
		assert.True(t, env.Retryable)
		assert.ErrorIs(t, err, envelope.ErrValidation)
	})
	t.Run("joined errors", func(t *testing.T) {
		t.Parallel()
		err := errors.Join(envelope.AddNextSteps(envelope.ErrNotFound, "Call shop_search first."), errors.New("second"))
		env := expect(t, serve(t, failing(err)).Call(nil), envelope.NotFound)
		assert.Equal(t, "Call shop_search first.", env.NextSteps[0])
	})
	t.Run("nil", func(t *testing.T) {
		t.Parallel()
		assert.NoError(t, envelope.AddNextSteps(nil, "x"))
		assert.NoError(t, envelope.ReplaceNextSteps(nil, "x"))
		assert.NoError(t, envelope.AddFields(nil))
		assert.NoError(t, envelope.SetRetryable(nil, true))
	})
}

func TestDefaultNextStepsOverride(t *testing.T) {
	t.Parallel()
	s := serve(t, failing(envelope.ErrNotFound), envelope.WithDefaultNextSteps(envelope.NotFound, "Call shop_search to find valid product IDs."))
	assert.Equal(t, []string{"Call shop_search to find valid product IDs."}, expect(t, s.Call(nil), envelope.NotFound).NextSteps)
}

func TestInvalidConfigurationPanicsAtConstruction(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() { envelope.WithMapping(nil, envelope.NotFound) })
	assert.Panics(t, func() { envelope.WithMapping(sql.ErrNoRows, "nope") })
	assert.Panics(t, func() { envelope.WithMapper(nil) })
	assert.Panics(t, func() { envelope.WithDefaultNextSteps("nope") })
}

func TestFromResult(t *testing.T) {
	t.Parallel()
	res := envelope.ErrorResult(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "shop_tool"}}, envelope.ErrNotFound)
	env, ok := envelope.FromResult(res)
	require.True(t, ok)
	assert.Equal(t, envelope.NotFound, env.ErrorType)
	assert.Equal(t, "shop_tool", env.Tool)

	res.StructuredContent = nil // as a client decodes it: from the text
	env, ok = envelope.FromResult(res)
	require.True(t, ok)
	assert.Equal(t, envelope.NotFound, env.ErrorType)

	for _, bad := range []*mcp.CallToolResult{nil, mcp.NewToolResultText("ok"), mcp.NewToolResultError("plain"), mcp.NewToolResultError(`{"success":true,"error_type":"not_found"}`), mcp.NewToolResultError(`{"success":false,"error_type":"teapot"}`)} {
		_, ok := envelope.FromResult(bad)
		assert.False(t, ok)
	}
}

func TestErrorResultWithoutServerInContext(t *testing.T) {
	t.Parallel()
	res := envelope.ErrorResult(context.Background(), mcp.CallToolRequest{}, nil)
	env, ok := envelope.FromResult(res)
	require.True(t, ok)
	assert.Equal(t, envelope.InternalError, env.ErrorType)
}

func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	s := middlewaretest.New(t, mcp.NewTool("shop_nf"), failing(envelope.ErrNotFound),
		envelope.Middleware(envelope.WithLogger(slog.New(slog.DiscardHandler))))
	s.MCPServer().AddTool(mcp.NewTool("shop_raw"), failing(errors.New("raw cause: dial 10.9.8.7 refused")))
	s.MCPServer().AddTool(mcp.NewTool("shop_ok"), returning(mcp.NewToolResultText("ok")))
	var wg sync.WaitGroup
	for i := range 1200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch i % 3 {
			case 0:
				s.CallTool("shop_nf", map[string]any{"i": i}).ExpectError(envelope.NotFound)
			case 1:
				s.CallTool("shop_raw", map[string]any{"i": i}).ExpectError(envelope.InternalError).NoLeak("10.9.8.7")
			default:
				s.CallTool("shop_ok", map[string]any{"i": i}).ExpectSuccess()
			}
		}()
	}
	wg.Wait()
}

func TestHugeMessagesAreBounded(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("é", 500_000) + " password=hunter2"
	r := serve(t, failing(envelope.Wrap(envelope.ExecutionFailed, errors.New(huge)))).Call(nil)
	env := expect(t, r, envelope.ExecutionFailed)
	assert.LessOrEqual(t, len(env.Message), envelope.MaxMessageBytes)
	assert.True(t, strings.HasSuffix(env.Message, "…(truncated)"))
	assert.True(t, utf8.ValidString(env.Message), "cut at a character boundary")
	r.NoLeak("hunter2")

	secretAtCut := strings.Repeat("x ", envelope.MaxMessageBytes/2-10) + "password=hunter2hunter2hunter2"
	serve(t, failing(envelope.Wrap(envelope.ExecutionFailed, errors.New(secretAtCut)))).Call(nil).
		ExpectError(envelope.ExecutionFailed).NoLeak("hunter2")
}

// hostile is an error whose every method panics.
type hostile struct{}

func (hostile) Error() string { panic("Error") }
func (hostile) Is(error) bool { panic("Is") }
func (hostile) As(any) bool   { panic("As") }
func (hostile) Unwrap() error { panic("Unwrap") }

func TestHostileErrorMethodsAreContained(t *testing.T) {
	t.Parallel()
	logs := middlewaretest.NewLog(t)
	s := serve(t, failing(hostile{}), envelope.WithLogger(logs.Logger()), envelope.WithMapping(sql.ErrNoRows, envelope.NotFound))
	r := s.Call(nil)
	env := expect(t, r, envelope.InternalError) // no recover layer needed: envelope contains it itself
	assert.NotEmpty(t, env.IncidentID)
	logs.ExpectIncident(r)
}
