package instagram_test

import (
	"os"
	"testing"

	"github.com/msgsvc/msgsvc/channels/meta/metatest"
)

func TestMain(m *testing.M) {
	metatest.TrustTLSStandIns()
	os.Exit(m.Run())
}
