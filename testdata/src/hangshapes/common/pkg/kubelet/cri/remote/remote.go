// Package remote is a look-alike of the CRI client.
package remote

import (
	"context"
	"time"

	internalapi "k8s.io/cri-api/pkg/apis"
)

// NewRemoteRuntimeService dials the runtime; each call waits at most timeout.
func NewRemoteRuntimeService(endpoint string, timeout time.Duration) (internalapi.RuntimeService, error) {
	return nil, nil
}

// Builder builds a runtime service step by step.
type Builder struct{}

// NewRemoteRuntimeServiceBuilder starts a Builder.
func NewRemoteRuntimeServiceBuilder() *Builder { return &Builder{} }

// WithEndpoint sets the endpoint.
func (b *Builder) WithEndpoint(string) *Builder { return b }

// WithConnectionTimeout sets each call's timeout.
func (b *Builder) WithConnectionTimeout(time.Duration) *Builder { return b }

// Build dials.
func (b *Builder) Build(ctx context.Context) (internalapi.RuntimeService, error) { return nil, nil }
