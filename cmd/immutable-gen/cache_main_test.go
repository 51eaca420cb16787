package main

import (
	"os"
	"testing"

	"github.com/immutable-gen/immutable-gen/cache"
)

// TestMain turns the on-disk cache of API-server findings off, so that the
// tests neither read results an earlier run left in the user's cache nor
// leave entries there (the cache's own tests set a private directory).
func TestMain(m *testing.M) {
	if os.Getenv(cache.EnvVar) == "" {
		os.Setenv(cache.EnvVar, "off")
	}
	os.Exit(m.Run())
}
