// Package containerdcheck holds a live check of plegvet's runtime verdict:
// its test starts a real containerd (Debian's, installed when missing),
// opens the CRI GetContainerEvents stream against it, and requires what
// the runtime did to agree with what plegvet reads in the source of the
// release the runtime reports. It is a module of its own so that plegvet
// does not depend on gRPC or the CRI Go API.
//
// Run it as root: (cd tools/containerdcheck && go test ./...). Not root,
// or no containerd and apt-get cannot install one: the test is skipped,
// with the reason.
package containerdcheck
