module github.com/plegvet/plegvet

go 1.26.0

require (
	github.com/agnivade/levenshtein v1.2.2
	github.com/emicklei/proto v1.14.3
	github.com/golangci/plugin-module-register v0.1.2
	github.com/grafana/grafana-foundation-sdk/go v0.0.22
	github.com/owenrumney/go-sarif/v3 v3.3.1
	github.com/prometheus/client_model v0.6.3
	github.com/prometheus/common v0.73.1
	github.com/rogpeppe/go-internal v1.16.0
	github.com/sourcegraph/jsonrpc2 v0.2.3
	github.com/xeipuuv/gojsonschema v1.2.0
	go.yaml.in/yaml/v3 v3.0.5
	golang.org/x/mod v0.42.0
	golang.org/x/sync v0.24.0
	golang.org/x/sys v0.49.0
	golang.org/x/tools v0.52.0
)

require (
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/pandatix/go-abnf v0.5.3 // indirect
	github.com/xeipuuv/gojsonpointer v0.0.0-20180127040702-4e3ac2762d5f // indirect
	github.com/xeipuuv/gojsonreference v0.0.0-20180127040603-bd5ef7bd5415 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
