package email

import (
	"crypto/tls"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-smtp"
)

// Defaults of the listener's limits (Listener's fields).
const (
	// MaxMailsReading bounds the mails a listener reads into memory at
	// once (each up to MaxMessageBytes); the data of one more is answered
	// 451, and its sender tries again later.
	MaxMailsReading = 16
	// MaxMailsReadingPerIP is how many of those one address may send at
	// once, so that one sender cannot take every slot.
	MaxMailsReadingPerIP = 4
	// MaxSessionsPerIP bounds the connections open from one address.
	MaxSessionsPerIP = 20
	// DataTimeout bounds a mail's whole data, from DATA to its final
	// dot: a 25 MB mail at 1 Mbit/s takes 200 s.
	DataTimeout = 5 * time.Minute
)

var (
	errBusy   = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 2}, Message: "Too busy, try again later"}
	errBusyIP = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 7, 0}, Message: "Too many mails at once from your address, try again later"}
	// errDataTimeout ends a session whose data did not end in time.
	errDataTimeout = &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 4, 2}, Message: "Data not received in time, closing connection"}
)

// tooManySessions is written to a connection over MaxSessionsPerIP before
// it is closed.
const tooManySessions = "421 4.7.0 Too many connections from your address, try again later\r\n"

// limits counts the sessions and the mails being read, in all and per
// address (ipKey).
type limits struct {
	maxReading, maxReadingPerIP, maxSessionsPerIP int

	mu      sync.Mutex
	reading int
	ips     map[string]*ipUse
}

type ipUse struct{ sessions, reading int }

func newLimits(l *Listener) *limits {
	or := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	return &limits{maxReading: or(l.MaxReading, MaxMailsReading), maxReadingPerIP: or(l.MaxReadingPerIP, MaxMailsReadingPerIP),
		maxSessionsPerIP: or(l.MaxSessionsPerIP, MaxSessionsPerIP), ips: map[string]*ipUse{}}
}

func (l *limits) use(key string) *ipUse {
	u := l.ips[key]
	if u == nil {
		u = &ipUse{}
		l.ips[key] = u
	}
	return u
}

func (l *limits) forget(key string, u *ipUse) {
	if u.sessions == 0 && u.reading == 0 {
		delete(l.ips, key)
	}
}

// openSession counts a connection from key; false when key has
// maxSessionsPerIP open.
func (l *limits) openSession(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.use(key)
	if u.sessions >= l.maxSessionsPerIP {
		l.forget(key, u)
		return false
	}
	u.sessions++
	return true
}

func (l *limits) closeSession(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.use(key)
	u.sessions--
	l.forget(key, u)
}

// startReading takes a slot for a mail's data from key, or answers why
// not; release gives it back.
func (l *limits) startReading(key string) (release func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.use(key)
	switch {
	case u.reading >= l.maxReadingPerIP:
		l.forget(key, u)
		return nil, errBusyIP
	case l.reading >= l.maxReading:
		l.forget(key, u)
		return nil, errBusy
	}
	u.reading++
	l.reading++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		u.reading--
		l.reading--
		l.forget(key, u)
	}, nil
}

// ipKey is the address a connection's limits count against: an IPv4
// address, or the /64 of an IPv6 one (a host usually has a whole /64).
func ipKey(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return addr.String()
	}
	if v4 := tcp.IP.To4(); v4 != nil {
		return v4.String()
	}
	return (&net.IPNet{IP: tcp.IP.Mask(net.CIDRMask(64, 128)), Mask: net.CIDRMask(64, 128)}).String()
}

// limitedListener refuses a connection from an address that has
// maxSessionsPerIP open, and counts the others.
type limitedListener struct {
	net.Listener
	limits *limits
}

func (l limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := ipKey(c.RemoteAddr())
		if l.limits.openSession(key) {
			return &limitedConn{Conn: c, key: key, limits: l.limits}, nil
		}
		slog.Warn("inbound smtp: too many connections from one address; answered 421", "ip", key, "limit", l.limits.maxSessionsPerIP)
		go func() {
			_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second))
			_, _ = c.Write([]byte(tooManySessions))
			_ = c.Close()
		}()
	}
}

// limitedConn is a counted connection; once cut (its data came too late)
// it reads nothing more, so the session ends after its reply.
type limitedConn struct {
	net.Conn
	key    string
	limits *limits
	cut    atomic.Bool
	closed sync.Once
}

func (c *limitedConn) Read(b []byte) (int, error) {
	if c.cut.Load() {
		return 0, net.ErrClosed
	}
	return c.Conn.Read(b)
}

func (c *limitedConn) Close() error {
	c.closed.Do(func() { c.limits.closeSession(c.key) })
	return c.Conn.Close()
}

// connOf is a session's counted connection (nil for none, as in tests
// that drive a session alone).
func connOf(c *smtp.Conn) *limitedConn {
	if c == nil {
		return nil
	}
	nc := c.Conn()
	if t, ok := nc.(*tls.Conn); ok {
		nc = t.NetConn()
	}
	lc, _ := nc.(*limitedConn)
	return lc
}

// readingOf is how many mails key is sending now ("": all addresses).
func (l *limits) readingOf(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if key == "" {
		return l.reading
	}
	if u := l.ips[key]; u != nil {
		return u.reading
	}
	return 0
}
