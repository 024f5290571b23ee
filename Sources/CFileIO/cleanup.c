// See CFileIO.h.
#define _GNU_SOURCE
#include "CFileIO.h"

#include <errno.h>
#include <signal.h>
#include <time.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

// A file set (AtomicFileSet: every array of a prediction) holds a temporary
// file per output until its commit: room for large sets. The paths are
// untouched memory until used.
#define SLOTS 1024
#define PATH_BYTES 4096

// A slot is free (0), being filled or emptied (1), or in use (2). The
// handler reads only slots in use; the state is atomic so that it never
// sees a half-written path.
static _Atomic int states[SLOTS];
static char paths[SLOTS][PATH_BYTES];
static pid_t children[SLOTS];
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
static atomic_flag installed = ATOMIC_FLAG_INIT;
/// Spawns between fileio_begin_spawn and fileio_end_spawn.
static _Atomic int spawning = 0;

void fileio_begin_spawn(void) { atomic_fetch_add(&spawning, 1); }
void fileio_end_spawn(void) { atomic_fetch_sub(&spawning, 1); }

static void cleanup_and_reraise(int signal_number) {
    int saved = errno;
    // A child being spawned on another thread is registered in a moment
    // (that thread blocks these signals meanwhile, so it is not this one).
    struct timespec pause = {0, 1000000};
    for (int waited = 0; atomic_load(&spawning) > 0 && waited < 1000; waited++) nanosleep(&pause, NULL);
    for (int i = 0; i < SLOTS; i++) {
        if (atomic_load(&states[i]) != 2) continue;
        if (children[i] > 0) kill(children[i], SIGKILL);
        else unlink(paths[i]);
    }
    errno = saved;
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

void fileio_install_cleanup_handlers(void) {
    if (atomic_flag_test_and_set(&installed)) return;
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++) {
        struct sigaction previous;
        if (sigaction(cleanup_signals[i], NULL, &previous) == 0 && previous.sa_handler == SIG_IGN) continue;
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = cleanup_and_reraise;
        sigemptyset(&action.sa_mask);
        // The other cleanup signals wait while one is handled.
        for (size_t j = 0; j < sizeof cleanup_signals / sizeof cleanup_signals[0]; j++) {
            sigaddset(&action.sa_mask, cleanup_signals[j]);
        }
        action.sa_flags = SA_RESTART;
        sigaction(cleanup_signals[i], &action, NULL);
    }
}

static int claim(void) {
    for (int i = 0; i < SLOTS; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&states[i], &expected, 1)) return i;
    }
    return -1;
}

int fileio_remember_file(const char *path) {
    size_t length = strlen(path);
    if (length >= PATH_BYTES) return -1;
    int slot = claim();
    if (slot < 0) return -1;
    memcpy(paths[slot], path, length + 1);
    children[slot] = 0;
    atomic_store(&states[slot], 2);
    return slot;
}

int fileio_remember_child(pid_t pid) {
    if (pid <= 0) return -1;
    int slot = claim();
    if (slot < 0) return -1;
    paths[slot][0] = 0;
    children[slot] = pid;
    atomic_store(&states[slot], 2);
    return slot;
}

void fileio_forget(int slot) {
    if (slot < 0 || slot >= SLOTS) return;
    atomic_store(&states[slot], 1);
    children[slot] = 0;
    paths[slot][0] = 0;
    atomic_store(&states[slot], 0);
}
