package bench

import (
	"syscall"
	"time"
)

// sleepFine sleeps d in nanosleep(2): the kernel wakes the thread within
// its timer slack (50 µs by default), where the Go runtime's own timers
// wake an idle process through epoll_wait, whose timeout counts whole
// milliseconds (a 0.3 ms timer fires up to 1 ms late).
func sleepFine(d time.Duration) {
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	for ts.Sec > 0 || ts.Nsec > 0 {
		if syscall.Nanosleep(&ts, &ts) != syscall.EINTR {
			return
		}
	}
}
