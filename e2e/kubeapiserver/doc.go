// Package kubeapiserver runs the immutability webhook (runtime/webhook)
// behind a real kube-apiserver: controller-runtime's envtest starts
// kube-apiserver v1.37.1 and etcd v3.7.0, both built from the Go module
// proxy by binaries/build.sh into bin/ (once; later runs reuse them), and a
// controller-runtime manager serves the webhook on 127.0.0.1 with envtest's
// self-signed certificate. The test installs the bundled example CRD without
// CEL rules and without the extensions, so that the webhook is the only
// thing enforcing immutability, registers the ValidatingWebhookConfiguration
// that webhook.Configuration generates, and checks update, patch,
// server-side apply and dry-run requests.
//
// It is a nested module so that neither the main module nor the other e2e
// modules build the API server or envtest; run it with make e2e-webhook.
package kubeapiserver
