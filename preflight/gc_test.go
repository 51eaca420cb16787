package preflight_test

// The API server's validators and CEL allocate heavily: see internal/testgc.
import _ "github.com/immutable-gen/immutable-gen/internal/testgc"
