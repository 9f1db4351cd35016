module github.com/mcpguard/mcpguard/core

go 1.25.5

require (
	github.com/mcpguard/mcpguard/internal v0.0.0
	github.com/stretchr/testify v1.12.1
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect

replace github.com/mcpguard/mcpguard/internal => ../internal
