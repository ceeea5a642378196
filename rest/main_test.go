package rest_test

import (
	"testing"

	"github.com/msgsvc/msgsvc/repo/repotest"
)

func TestMain(m *testing.M) {
	trustStandInTLS()
	repotest.Main(m)
}
