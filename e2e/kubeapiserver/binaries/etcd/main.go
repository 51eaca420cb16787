// Command etcd is etcd's own server entry point, etcdmain.Main, built from
// the go.etcd.io/etcd/server/v3 module (the etcd main package lives in the
// go.etcd.io/etcd/v3 root module, which is not meant to be required).
// envtest runs it as the control plane's store.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
