module github.com/mcpguard/mcpguard/cmd/mcpguard-proxy

go 1.25.5

require (
	github.com/mcpguard/mcpguard/core v0.0.0
	github.com/mcpguard/mcpguard/internal v0.0.0
)

require golang.org/x/time v0.15.0

require go.yaml.in/yaml/v3 v3.0.5
