module k8s.io/component-base

go 1.26

require k8s.io/apimachinery v0.0.0

replace k8s.io/apimachinery => ../apimachinery
