module github.com/mcpguard/mcpguard/gosdk

go 1.25.5

require github.com/mcpguard/mcpguard/core v0.0.0

require github.com/mcpguard/mcpguard/internal v0.0.0 // indirect

replace (
	github.com/mcpguard/mcpguard/core => ../core
	github.com/mcpguard/mcpguard/internal => ../internal
)
