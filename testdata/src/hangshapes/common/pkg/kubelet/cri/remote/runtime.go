package remote

import (
	"context"
	"time"
)

// remoteRuntimeService bounds each call by its timeout, but ListPodSandboxStats.
type remoteRuntimeService struct {
	timeout time.Duration
}

func (r *remoteRuntimeService) Version(ctx context.Context, apiVersion string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	return apiVersion, ctx.Err()
}

func (r *remoteRuntimeService) Status(ctx context.Context, verbose bool) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	return "", ctx.Err()
}

func (r *remoteRuntimeService) ListPodSandbox(ctx context.Context, filter string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	return nil, ctx.Err()
}

func (r *remoteRuntimeService) ListContainers(ctx context.Context, filter string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	return nil, ctx.Err()
}

func (r *remoteRuntimeService) ListContainerStats(ctx context.Context, filter string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*r.timeout)
	defer cancel()
	return nil, ctx.Err()
}

func (r *remoteRuntimeService) ListPodSandboxStats(ctx context.Context, filter string) ([]string, error) {
	return nil, ctx.Err()
}

func (r *remoteRuntimeService) PodSandboxStatus(ctx context.Context, id string) (string, error) {
	return "", nil
}

func (r *remoteRuntimeService) ContainerStatus(ctx context.Context, id string) (string, error) {
	return "", nil
}
