module k8s.io/kubernetes

go 1.26

require (
	k8s.io/apimachinery v0.0.0
	k8s.io/component-base v0.0.0
)

replace (
	k8s.io/apimachinery => ./staging/src/k8s.io/apimachinery
	k8s.io/component-base => ./staging/src/k8s.io/component-base
)
