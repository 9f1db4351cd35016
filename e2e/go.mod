module github.com/mcpguard/mcpguard/e2e

go 1.25.5

require (
	github.com/mark3labs/mcp-go v1.2.1
	github.com/mcpguard/mcpguard v0.0.0
	github.com/mcpguard/mcpguard/core v0.0.0
	github.com/mcpguard/mcpguard/e2e/nodetest v0.0.0
	github.com/mcpguard/mcpguard/gosdk v0.0.0
	github.com/mcpguard/mcpguard/redisstore v0.0.0
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/redis/rueidis v1.0.79
	golang.org/x/time v0.15.0
)

require (
	github.com/gabriel-vasile/mimetype v1.4.16 // indirect
	github.com/go-playground/locales v0.14.1 // indirect
	github.com/go-playground/universal-translator v0.18.1 // indirect
	github.com/go-playground/validator/v10 v10.30.4 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/leodido/go-urn v1.5.0 // indirect
	github.com/mcpguard/mcpguard/internal v0.0.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/crypto v0.55.0 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)

replace (
	github.com/mcpguard/mcpguard => ../
	github.com/mcpguard/mcpguard/core => ../core
	github.com/mcpguard/mcpguard/e2e/nodetest => ./nodetest
	github.com/mcpguard/mcpguard/gosdk => ../gosdk
	github.com/mcpguard/mcpguard/internal => ../internal
	github.com/mcpguard/mcpguard/redisstore => ../redisstore
)
