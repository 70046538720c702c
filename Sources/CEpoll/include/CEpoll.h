#ifndef SURVEY_BOT_CEPOLL_H
#define SURVEY_BOT_CEPOLL_H

// The Linux system interfaces Swift's Glibc module does not expose. Nothing else lives here.
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

/// accept4(2) with SOCK_NONBLOCK | SOCK_CLOEXEC: Glibc hides accept4 behind _GNU_SOURCE.
int cepoll_accept_nonblocking(int fd);
#endif

#endif
