#ifndef SURVEY_BOT_CEPOLL_H
#define SURVEY_BOT_CEPOLL_H

// The Linux system interfaces Swift's Glibc module does not expose. Nothing else lives here.
// CEpoll.c includes it and SurveyEngine imports it, so a build on another system stops here
// with one clear message instead of many about missing epoll symbols.
#if !defined(__linux__)
#error "survey-bot needs Linux: its event loops use epoll"
#endif

#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

/// accept4(2) with SOCK_NONBLOCK | SOCK_CLOEXEC: Glibc hides accept4 behind _GNU_SOURCE.
int cepoll_accept_nonblocking(int fd);
#endif

#endif
