module github.com/mcpguard/mcpguard/cmd/mcpguard-audit

go 1.25.5

require (
	github.com/mark3labs/mcp-go v1.2.1
	github.com/mcpguard/mcpguard v0.0.0
	github.com/mcpguard/mcpguard/e2e/nodetest v0.0.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
	github.com/stretchr/testify v1.12.1
)
