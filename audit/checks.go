package audit

// CheckInfo describes one check: what it flags, its highest severity and
// why it matters. It is the one catalog the SARIF rules, the README's rule
// table and the package documentation are checked against.
type CheckInfo struct {
	// ID is the stable check ID, e.g. "C.enum".
	ID string `json:"id"`
	// Rule is the rule the check belongs to.
	Rule Rule `json:"rule"`
	// Severity is the highest severity the check reports.
	Severity Severity `json:"severity"`
	// Summary says in one line what the check flags.
	Summary string `json:"summary"`
	// Why says why it matters to an agent or a user.
	Why string `json:"why"`
}

var catalog = []CheckInfo{
	{CheckName, RuleNames, Error, "tool name outside the MCP specification's 1-128 characters of A-Z a-z 0-9 _ - .", "clients may reject or rename the tool"},
	{CheckNamespace, RuleNames, Error, "tool name lacks the server's shared namespace prefix, or no prefix is shared", "an unprefixed name collides with another loaded server's tool and the model cannot tell whose it is"},
	{CheckSnakeCase, RuleNames, Warning, "tool name (after the prefix) is not snake_case", "mixed conventions make the model misspell tool names"},
	{CheckDuplicate, RuleNames, Error, "two tools share a name", "clients keep one of them at random or reject the list"},
	{CheckDescMissing, RuleDescriptions, Error, "no description", "the model chooses tools by their descriptions and skips or misuses one without"},
	{CheckDescShort, RuleDescriptions, Warning, "description too short (under 40 characters by default)", "too short to tell the model when to call this tool rather than another"},
	{CheckDescLong, RuleDescriptions, Warning, "description too long (over 1024 characters by default)", "every loaded description costs context on every turn, and clients may truncate it"},
	{CheckDescWhen, RuleDescriptions, Warning, "description names no trigger or precondition", "the model cannot tell which step of a task the tool is for"},
	{CheckDescNext, RuleDescriptions, Info, "description names no successor", "the model has to discover the follow-up step itself"},
	{CheckDescUnknownTool, RuleDescriptions, Error, "description names a tool the server lacks", "the model calls the named tool and fails"},
	{CheckRootType, RuleSchemas, Error, `input schema is not "type": "object"`, "clients may send a stringified object or nothing at all"},
	{CheckType, RuleSchemas, Error, "a property, or an array's items, has no concrete type", "the model may send any JSON value"},
	{CheckEnum, RuleSchemas, Error, "a categorical string without enum", "the model sends near-misses that match nothing"},
	{CheckPattern, RuleSchemas, Warning, "an ID-like string without pattern", "anything, including a path traversal, passes the schema"},
	{CheckBounds, RuleSchemas, Error, "a number without minimum and maximum", "a model that wants everything sends 99999"},
	{CheckMaxLength, RuleSchemas, Error, "a free string without maxLength", "a model that decides more context is better sends kilobytes"},
	{CheckMaxItems, RuleSchemas, Warning, "an array without maxItems", "nothing stops the model from sending thousands of elements"},
	{CheckAdditional, RuleSchemas, Warning, "an object without additionalProperties: false", "a misspelled argument is silently ignored instead of rejected"},
	{CheckTooComplex, RuleSchemas, Error, "a schema deeper than 32 levels or over 10,000 nodes, or a definition nested deeper than 64 levels", "a model asked to fill such a shape guesses, and the audit stops reading there"},
	{CheckNetworkRef, RuleSchemas, Error, "a $ref outside the schema (a URL or file)", "a client must fetch it or fail, and whoever controls that host can change the schema after review"},
	{CheckNotProbeable, RuleErrors, Info, "no invalid call exists for the tool; it is never called", "rule D is checked on the tools that take arguments"},
	{CheckJSONRPC, RuleErrors, Error, "an invalid call answered with a JSON-RPC error", "the model never sees a protocol error and the agent stalls"},
	{CheckJSONRPCCode, RuleErrors, Error, "a tool failure answered with JSON-RPC code 0, -32603, or a code in the reserved (-32020 to -32099) or legacy (-32000 to -32019) ranges", "clients treat these as protocol faults, never as a tool's answer the model can act on"},
	{CheckNoAnswer, RuleErrors, Error, "an invalid call got no answer (transport failure, timeout)", "the agent waits, then gives up"},
	{CheckAccepted, RuleErrors, Error, "an invalid call answered with success", "the tool acts on input it declared invalid"},
	{CheckEnvelope, RuleErrors, Error, "isError: true, but plain text or JSON without a taxonomy error_type", "the agent has to parse prose and has no code to branch on"},
	{CheckNextSteps, RuleErrors, Warning, "the error envelope has no next_steps", "the agent is not told how to recover"},
	{CheckErrorType, RuleErrors, Warning, "invalid arguments answered with internal_error (warning) or execution_failed/not_found (info)", "the agent retries the same mistake instead of fixing its arguments"},
	{CheckStructuredError, RuleErrors, Error, "an isError result carries structuredContent that does not match the tool's outputSchema", "strict clients validate structuredContent even on errors and throw, so the model never sees the error"},
	{CheckLeak, RuleErrors, Error, "the answer carries a stack trace, file path, panic value or secret", "it tells an attacker how the server is built and may hand over credentials"},
	{CheckAnnotationsMissing, RuleAnnotations, Warning, "the tool declares no annotations", "clients cannot tell a read from a write and ask the user to confirm everything, or nothing"},
	{CheckReadOnlyHint, RuleAnnotations, Warning, "a get_/list_/search_/read_ tool without readOnlyHint: true", "clients ask for confirmation of a harmless call, or users learn to approve every call"},
	{CheckDestructiveHint, RuleAnnotations, Error, "a delete_/drop_/remove_ tool that claims readOnlyHint: true or destructiveHint: false", "clients run it without asking the user"},
	{CheckInstructions, RulePoisoning, Error, `text that instructs the model ("ignore previous instructions", "do not tell the user", read ~/.ssh ...)`, "tool poisoning: the model follows instructions the user never sees"},
	{CheckImportantTag, RulePoisoning, Error, "<IMPORTANT>, <SYSTEM> or <instructions> blocks in a description or schema", "the shape of published tool-poisoning attacks: text for the model, hidden from the user's view of the tool"},
	{CheckHiddenUnicode, RulePoisoning, Error, "invisible Unicode (tag characters, zero-width characters, bidirectional controls)", "the model reads text the user cannot see"},
	{CheckBaselineAdded, RuleBaseline, Error, "a tool the baseline does not have", "a tool nobody reviewed reaches the model"},
	{CheckBaselineRemoved, RuleBaseline, Error, "a baseline tool the server no longer lists", "agents and prompts that rely on it break"},
	{CheckBaselineChanged, RuleBaseline, Error, "a tool whose definition (name, description, schemas, annotations) differs from the baseline", `a "rug pull": a tool that read fine at review is rewritten later`},
	{CheckListChanged, RuleList, Error, "tool definitions differ between two tools/list calls in one run", "a server that changes its tools per connection can show a reviewer one thing and the model another"},
	{CheckListOrder, RuleList, Warning, "two tools/list calls list the tools in different orders", "the specification says the order SHOULD be deterministic; clients' prompt caches miss on every reordering"},
	{CheckListTokens, RuleList, Warning, "tools/list is larger than the token budget (15,000 estimated tokens by default)", "every turn pays for every loaded tool's definition; a large list crowds out the conversation"},
}

// Checks returns the catalog of every check, in rule order.
func Checks() []CheckInfo { return append([]CheckInfo(nil), catalog...) }

// CheckByID returns the catalog entry of a check.
func CheckByID(id string) (CheckInfo, bool) {
	for _, c := range catalog {
		if c.ID == id {
			return c, true
		}
	}
	return CheckInfo{}, false
}
