#define _GNU_SOURCE
#include <stddef.h>
#include <sys/socket.h>

#include "CEpoll.h"

#ifdef __linux__
int cepoll_accept_nonblocking(int fd) {
    return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
#endif
