// See CFileIO.h: a helper program run to completion, never outliving us.
#define _GNU_SOURCE
#include "CFileIO.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static long long now_ms(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (long long)time.tv_sec * 1000 + time.tv_nsec / 1000000;
}

/// Appends what is readable on `fd` to a growing buffer; 0 at end of file,
/// 1 when more may come, -1 on error, -2 past `limit`.
static int drain(int fd, char **buffer, size_t *length, size_t *capacity, size_t limit) {
    if (*length == *capacity) {
        if (*capacity > limit) return -2;
        size_t larger = *capacity ? *capacity * 2 : 4096;
        char *grown = realloc(*buffer, larger);
        if (grown == NULL) return -1;
        *buffer = grown;
        *capacity = larger;
    }
    ssize_t got = read(fd, *buffer + *length, *capacity - *length);
    if (got < 0) return errno == EINTR || errno == EAGAIN ? 1 : -1;
    if (got == 0) return 0;
    *length += (size_t)got;
    return 1;
}

/// pipe(2) with both ends close-on-exec (pipe2 is Linux only).
static int cloexec_pipe(int fds[2]) {
    if (pipe(fds) != 0) return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
}

fileio_child_result fileio_run_child(char *const argv[], const char *input, size_t input_length,
                                     int timeout_ms, size_t max_output) {
    fileio_child_result result = {2, 0, 0, NULL, NULL, 0, 0};
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    if (cloexec_pipe(in) != 0 || cloexec_pipe(out) != 0 || cloexec_pipe(err) != 0) {
        result.error = errno;
        int fds[] = {in[0], in[1], out[0], out[1], err[0], err[1]};
        for (int i = 0; i < 6; i++) if (fds[i] >= 0) close(fds[i]);
        return result;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    // Nothing else of ours reaches the child: not a file being written, nor
    // a descriptor by which our own parent watches us (Foundation's Process
    // waits for its end, and a child holding it would outlive our death).
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t empty, cleanup, previous;
    sigemptyset(&empty);
    posix_spawnattr_setsigmask(&attributes, &empty);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    // No cleanup signal between the spawn and the registration.
    sigemptyset(&cleanup);
    sigaddset(&cleanup, SIGINT);
    sigaddset(&cleanup, SIGTERM);
    sigaddset(&cleanup, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &cleanup, &previous);
    fileio_begin_spawn();
    pid_t child;
    int spawned = posix_spawn(&child, argv[0], &actions, &attributes, argv, environ);
    int slot = spawned == 0 ? fileio_remember_child(child) : -1;
    fileio_end_spawn();
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(in[0]);
    close(out[1]);
    close(err[1]);
    if (spawned != 0) {
        result.error = spawned;
        close(in[1]);
        close(out[0]);
        close(err[0]);
        return result;
    }
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    size_t written = 0, output_capacity = 0, errors_capacity = 0;
    int input_open = 1, output_open = 1, errors_open = 1;
    if (input_length == 0) { close(in[1]); input_open = 0; }
    long long deadline = now_ms() + timeout_ms;
    result.outcome = 0;
    while (output_open || errors_open) {
        long long left = deadline - now_ms();
        if (left <= 0) { result.outcome = 1; break; }
        struct pollfd fds[3];
        int count = 0, input_index = -1, output_index = -1, errors_index = -1;
        if (input_open) { input_index = count; fds[count++] = (struct pollfd){in[1], POLLOUT, 0}; }
        if (output_open) { output_index = count; fds[count++] = (struct pollfd){out[0], POLLIN, 0}; }
        if (errors_open) { errors_index = count; fds[count++] = (struct pollfd){err[0], POLLIN, 0}; }
        int ready = poll(fds, (nfds_t)count, (int)(left > 1000000 ? 1000000 : left));
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) { result.outcome = 2; result.error = errno; break; }
        if (input_index >= 0 && fds[input_index].revents) {
            ssize_t sent = write(in[1], input + written, input_length - written);
            if (sent > 0) written += (size_t)sent;
            // The child stopped reading (or finished): no more input.
            if ((sent < 0 && errno != EAGAIN && errno != EINTR) || written == input_length) {
                close(in[1]);
                input_open = 0;
            }
        }
        if (output_index >= 0 && fds[output_index].revents) {
            int state = drain(out[0], &result.output, &result.output_length, &output_capacity, max_output);
            if (state == -2) { result.outcome = 3; break; }
            if (state < 0) { result.outcome = 2; result.error = errno; break; }
            if (state == 0) output_open = 0;
        }
        if (errors_index >= 0 && fds[errors_index].revents) {
            int state = drain(err[0], &result.errors, &result.errors_length, &errors_capacity, max_output);
            if (state == -2) { result.outcome = 3; break; }
            if (state < 0) { result.outcome = 2; result.error = errno; break; }
            if (state == 0) errors_open = 0;
        }
    }
    if (input_open) close(in[1]);
    close(out[0]);
    close(err[0]);
    // A child that closed its output may still run: it gets the time left.
    while (result.outcome == 0) {
        pid_t done = waitpid(child, &result.status, WNOHANG);
        if (done == child) break;
        if (done < 0 && errno != EINTR) { result.outcome = 2; result.error = errno; break; }
        if (now_ms() >= deadline) { result.outcome = 1; break; }
        usleep(10000);
    }
    if (result.outcome != 0) {
        kill(child, SIGKILL);
        while (waitpid(child, &result.status, 0) < 0 && errno == EINTR) {}
    }
    fileio_forget(slot);
    return result;
}
