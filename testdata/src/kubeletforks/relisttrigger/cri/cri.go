// Package cri is a small stand-in for the CRI client API: the runtime's
// container events, typed by an enum as the generated protobuf code types
// them.
package cri

// ContainerEventType says what happened to a container.
type ContainerEventType int32

const (
	ContainerEventType_CONTAINER_CREATED_EVENT ContainerEventType = 0
	ContainerEventType_CONTAINER_STARTED_EVENT ContainerEventType = 1
	ContainerEventType_CONTAINER_STOPPED_EVENT ContainerEventType = 2
	ContainerEventType_CONTAINER_DELETED_EVENT ContainerEventType = 3
)

// ContainerEvent is one message of the runtime's event stream.
type ContainerEvent struct {
	ContainerID        string
	PodID              string
	ContainerEventType ContainerEventType
}

// RuntimeService is the part of the runtime client the PLEGs use.
type RuntimeService interface {
	// GetContainerEvents fills ch until the stream ends.
	GetContainerEvents(ch chan *ContainerEvent) error
	ListPods() ([]string, error)
}
