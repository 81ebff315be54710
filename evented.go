package plegvet

import "github.com/plegvet/plegvet/plegperiods"

// The evented PLEG answer's parts are the pleg analyzer's own.
type (
	// EventedPLEG is what the tree's evented PLEG does, read from its
	// code: its role is an extracted fact, not a release number's
	// assumption.
	EventedPLEG = plegperiods.EventedRole
	// ForcedRelist is the evented PLEG's call, in the branch run when its
	// stream call returns an error, that runs the generic PLEG's relist.
	ForcedRelist = plegperiods.ForcedRelist
	// RelistRequest is the evented PLEG's call of a relist request.
	RelistRequest = plegperiods.RelistRequest
	// HealthCheck is a health check registered on a PLEG.
	HealthCheck = plegperiods.HealthCheck
	// StreamFailure is what the evented PLEG does after its last allowed
	// stream failure.
	StreamFailure = plegperiods.StreamFailure
)
