package answer

// GateHistoryReport is the history of feature gates over releases, each
// release read from its own source: a spec a later release dropped from
// its list (a Beta that was reverted, say) still shows at the releases
// that had it.
type GateHistoryReport struct {
	SchemaVersion int            `json:"schemaVersion"`
	Gates         []GateTimeline `json:"gates"`
	// Releases are the releases read, oldest first, each with its Source
	// (and the files that did not load in full) or the Error that kept it
	// from being read. Not part of the JSON form: the rows of Gates carry
	// the errors.
	Releases []ReleaseRead `json:"-"`
}

// ReleaseRead is one release of a history as it was read.
type ReleaseRead struct {
	KubernetesVersion string
	Source            Source
	// Error is why the release could not be fetched or analysed; its
	// rows then say nothing else.
	Error string
	// Unfetched are the release's staging modules the go command did not
	// fetch (GatesReport.Unfetched): a gate absent from the release may
	// be declared in one of them.
	Unfetched []string
}

// GateTimeline is one gate over the releases.
type GateTimeline struct {
	// Name is the gate's name as the newest release declaring it names it.
	Name     string          `json:"name"`
	Releases []GateAtRelease `json:"releases"`
	Changes  []GateChange    `json:"changes"`
	// Modules are the gate's own modules: those whose files declare it
	// in the releases read (k8s.io/kubernetes for pkg/features). A
	// release that did not fetch some staging modules but read these
	// answers the gate: where it is absent, it is absent. Not part of
	// the JSON form.
	Modules []string `json:"-"`
}

// GateAtRelease is a gate as one release declares it.
type GateAtRelease struct {
	KubernetesVersion string `json:"kubernetesVersion"`
	// Exists is false where the release declares no such gate (or could
	// not be read: Error says why). Where the release's staging modules
	// were not all fetched (ReleaseRead.Unfetched), the gate may be
	// declared in one of those.
	Exists bool `json:"exists"`
	// Effective is the spec in force at the release, by the release's own
	// spec list, with its position; null where the gate does not exist or
	// no spec of it applies (none could be read).
	Effective *Spec `json:"effective"`
	// Newest is the version the release's newest spec of the gate names;
	// "" in the unversioned format (before v1.32) or without specs.
	Newest string `json:"newest"`
	// Error is set, and nothing else, where the release could not be read.
	Error string `json:"error,omitempty"`
	// Unfetched, where the gate does not exist and one of its own modules
	// (GateTimeline.Modules) is among the release's staging modules the
	// go command did not fetch, are those modules: the gate may be
	// declared in one of them, so its absence there is not known.
	Unfetched []string `json:"unfetched,omitempty"`
}

// GateChange is a release where the gate changed from the release before
// it in the history.
type GateChange struct {
	KubernetesVersion string `json:"kubernetesVersion"`
	// What is a short phrase: "added (Alpha, default false)", "promoted
	// Alpha -> Beta", "demoted Beta -> Alpha", "deprecated (was GA)",
	// "default flipped false -> true", "locked to default", "unlocked",
	// "removed".
	What string `json:"what"`
}

// Files visits the history's file names (Located): each row's is in its
// own release.
func (r *GateHistoryReport) Files(visit FileVisitor) {
	for i := range r.Gates {
		for j := range r.Gates[i].Releases {
			r.Gates[i].Releases[j].Files(visit)
		}
	}
}

// Files visits the row's file names (Located).
func (r *GateAtRelease) Files(visit FileVisitor) {
	files(visit).spec(r.Effective)
}
