// Package nodestatus is a look-alike of the node status setters.
package nodestatus

import "context"

// Setter updates a node's status.
type Setter func(ctx context.Context) error

// VersionInfo sets the runtime's version, asking it each update.
func VersionInfo(runtimeType func() string, runtimeVersion func(ctx context.Context) (string, error)) Setter {
	return func(ctx context.Context) error {
		_, err := runtimeVersion(ctx)
		return err
	}
}
