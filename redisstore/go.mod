module github.com/mcpguard/mcpguard/redisstore

go 1.25.5

require (
	github.com/mcpguard/mcpguard/core v0.0.0
	github.com/redis/rueidis v1.0.79
	github.com/stretchr/testify v1.12.1
	golang.org/x/time v0.15.0
)

require (
	github.com/mcpguard/mcpguard/internal v0.0.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.47.0 // indirect
)

replace github.com/mcpguard/mcpguard/core => ../core

replace github.com/mcpguard/mcpguard/internal => ../internal
