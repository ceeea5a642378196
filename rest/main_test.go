package rest_test

import (
	"testing"

	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

func TestMain(m *testing.M) {
	metatest.TrustTLSStandIns()
	repotest.Main(m)
}
