module github.com/immutable-gen/immutable-gen/e2e/kubebuilder

go 1.26.0
