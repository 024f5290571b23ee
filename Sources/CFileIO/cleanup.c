// See CFileIO.h.
#define _GNU_SOURCE
#include "CFileIO.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <dirent.h>
#include <sys/syscall.h>
#endif

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
/// A child's pid, 0 for a file, TREE for a folder removed with its content.
static pid_t children[SLOTS];
#define TREE ((pid_t)-1)
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
static atomic_flag installed = ATOMIC_FLAG_INIT;
/// Spawns between fileio_begin_spawn and fileio_end_spawn.
static _Atomic int spawning = 0;

void fileio_begin_spawn(void) { atomic_fetch_add(&spawning, 1); }
void fileio_end_spawn(void) { atomic_fetch_sub(&spawning, 1); }

#ifdef __linux__
/// Removes `name` in the folder `parent` (a file descriptor) and, for a
/// folder, everything in it first, `depth` levels at most. System calls
/// only (openat, getdents64, unlinkat, close): safe in the handler.
static void remove_tree_at(int parent, const char *name, int depth) {
    if (unlinkat(parent, name, 0) == 0 || (errno != EISDIR && errno != EPERM)) return;
    int folder = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (folder < 0) return;
    // Entries removed while the folder is read may shift the rest: read it again until a pass removes nothing.
    for (int pass = 0; pass < 4; pass++) {
        int removed = 0;
        char buffer[4096];
        long count;
        while ((count = syscall(SYS_getdents64, folder, buffer, sizeof buffer)) > 0) {
            for (long at = 0; at < count;) {
                struct dirent64 *entry = (struct dirent64 *)(buffer + at);
                at += entry->d_reclen;
                const char *child = entry->d_name;
                if (child[0] == '.' && (child[1] == 0 || (child[1] == '.' && child[2] == 0))) continue;
                if (depth > 0) remove_tree_at(folder, child, depth - 1); else unlinkat(folder, child, 0);
                removed++;
            }
        }
        if (removed == 0) break;
        lseek(folder, 0, SEEK_SET);
    }
    close(folder);
    unlinkat(parent, name, AT_REMOVEDIR);
}
#endif

static void cleanup_and_reraise(int signal_number) {
    int saved = errno;
    // A child being spawned on another thread is registered in a moment
    // (that thread blocks these signals meanwhile, so it is not this one).
    struct timespec pause = {0, 1000000};
    for (int waited = 0; atomic_load(&spawning) > 0 && waited < 1000; waited++) nanosleep(&pause, NULL);
    for (int i = 0; i < SLOTS; i++) {
        if (atomic_load(&states[i]) != 2) continue;
        if (children[i] > 0) kill(children[i], SIGKILL);
        else if (children[i] == TREE) {
#ifdef __linux__
            remove_tree_at(AT_FDCWD, paths[i], 8);
#else
            rmdir(paths[i]);
#endif
        } else unlink(paths[i]);
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

int fileio_remember_tree(const char *path) {
    int slot = fileio_remember_file(path);
    if (slot >= 0) {
        atomic_store(&states[slot], 1);
        children[slot] = TREE;
        atomic_store(&states[slot], 2);
    }
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
