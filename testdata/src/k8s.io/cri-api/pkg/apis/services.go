// Package apis is a look-alike of the CRI API's service interfaces, for
// plegvet's tests: a call of one of their methods is a runtime call.
package apis

import "context"

// RuntimeService stands for the runtime half of the CRI.
type RuntimeService interface {
	Version(ctx context.Context, apiVersion string) (string, error)
	Status(ctx context.Context, verbose bool) (string, error)
	ListPodSandbox(ctx context.Context, filter string) ([]string, error)
	ListContainers(ctx context.Context, filter string) ([]string, error)
	ListContainerStats(ctx context.Context, filter string) ([]string, error)
	ListPodSandboxStats(ctx context.Context, filter string) ([]string, error)
	PodSandboxStatus(ctx context.Context, id string) (string, error)
	ContainerStatus(ctx context.Context, id string) (string, error)
}

// ImageManagerService stands for the image half.
type ImageManagerService interface {
	ImageFsInfo(ctx context.Context) ([]string, error)
}
