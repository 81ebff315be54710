package runtimehang

import "go/types"

// SetOnFindImplementations sets the hook told of each search for an
// interface method's implementations; nil unsets it.
func SetOnFindImplementations(f func(fn *types.Func)) { onFindImplementations = f }
