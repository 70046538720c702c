// Preloaded into survey-bot under valgrind 3.19 by bench/instructions.sh: two calls that
// valgrind does not run as the kernel would.
#define _GNU_SOURCE
#include <signal.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// valgrind writes into the mask given to rt_sigsuspend, which libdispatch passes read-only
// (its signal thread crashes valgrind): the same wait on a copy.
int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, _NSIG / 8);
}

// valgrind does not know epoll_pwait2 (syscall 441), which the event loops wait with: the same
// wait through epoll_pwait, its timeout rounded up to whole milliseconds.
int epoll_pwait2(int epfd, struct epoll_event *events, int maxevents, const struct timespec *timeout, const sigset_t *sigmask) {
    int milliseconds = -1;
    if (timeout) {
        long long nanoseconds = (long long)timeout->tv_sec * 1000000000LL + timeout->tv_nsec;
        milliseconds = (int)((nanoseconds + 999999) / 1000000);
    }
    return epoll_pwait(epfd, events, maxevents, milliseconds, sigmask);
}
