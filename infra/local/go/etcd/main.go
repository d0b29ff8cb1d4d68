// Command etcd is the etcd server: the same entry point as upstream's own main,
// reached through the server module so the wrapper needs no copy of etcd code.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
