// Reading variable-length strings, and the links of groups, in a child
// process.
//
// libhdf5 1.10.8 (Debian 12) trusts the global heap, where variable-length
// strings live: a corrupted heap object size or a string reference naming a
// missing heap object makes H5Aread crash in H5HG_read (1.14 reports an error).
// Mutating the test files byte by byte finds such crashes in about 1 file in
// 150. It also frees an uninitialized pointer when it lists the links of a
// corrupt dense group (links in a fractal heap: H5Lget_name_by_idx ->
// H5G__link_release_table), and reads through a null pointer counting the
// links of a corrupt symbol-table group (H5Gget_info -> H5G__stab_count).
// These reads run in a forked child, which sends its results back through a
// pipe; a crash or hang there becomes an error. Several attributes can be
// read in one child (a fork costs more the more memory the parent holds).
#ifndef CHDF5_ISOLATED_READ_H
#define CHDF5_ISOLATED_READ_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "shim.h"

/// What an isolated read did.
typedef enum {
    /// Read: `data` holds the job's records (each a length as a native
    /// uint64_t, UINT64_MAX for none, followed by that many bytes).
    HDF5_ISOLATED_READ = 0,
    /// libhdf5 reported an error: `data` holds its message.
    HDF5_ISOLATED_HDF5_ERROR = 1,
    /// The child was killed by signal `code` (a crash), or exited with
    /// status `code` without sending everything.
    HDF5_ISOLATED_CRASHED = 2,
    HDF5_ISOLATED_FAILED = 6,
    /// The child sent more than the byte limit, or nothing for `code` seconds.
    HDF5_ISOLATED_TOO_LARGE = 3,
    HDF5_ISOLATED_TIMED_OUT = 4,
    /// pipe, fork or malloc failed: `code` is errno.
    HDF5_ISOLATED_SYSTEM_ERROR = 5,
} hdf5_isolated_status;

/// The outcome of an isolated read; free `data` with free().
typedef struct {
    hdf5_isolated_status status;
    int code;
    char *data;
    size_t size;
} hdf5_isolated_result;

/// Writes all of `size` bytes to `fd` (child side); false on failure.
static inline int hdf5_write_all(int fd, const void *bytes, size_t size) {
    const char *p = (const char *)bytes;
    while (size > 0) {
        ssize_t written = write(fd, p, size);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return 0;
        p += written;
        size -= (size_t)written;
    }
    return 1;
}

/// A read done in the child: writes 'S' and its results, or 'E' and HDF5's
/// message, to `fd`; returns the child's exit status (0 when all was sent).
typedef int (*hdf5_isolated_job)(int fd, const void *context);

/// Writes 'E' and the innermost HDF5 error message to `fd`; an exit status.
static inline int hdf5_write_error(int fd) {
    char message[512];
    hdf5_innermost_error(message, sizeof message);
    return hdf5_write_all(fd, "E", 1) && hdf5_write_all(fd, message, strlen(message)) ? 0 : 4;
}

/// Writes one result: its length as a native uint64_t, then its bytes (a
/// null string: length UINT64_MAX and no bytes); false on failure.
static inline int hdf5_write_record(int fd, const char *bytes, size_t length) {
    uint64_t size = bytes ? (uint64_t)length : UINT64_MAX;
    return hdf5_write_all(fd, &size, sizeof size) && (!bytes || hdf5_write_all(fd, bytes, length));
}

/// What the batch string job reads: `attribute_count` attributes, each with
/// its variable-length string type and number of strings.
typedef struct {
    const hid_t *attributes, *memory_types;
    const size_t *counts;
    size_t attribute_count;
} hdf5_strings_batch_job;

/// Reads every attribute before sending anything, so that an error in any
/// of them is the whole answer ('E').
static inline int hdf5_read_strings_batch_job(int fd, const void *context) {
    const hdf5_strings_batch_job *job = (const hdf5_strings_batch_job *)context;
    char ***strings = (char ***)calloc(job->attribute_count ? job->attribute_count : 1, sizeof(char **));
    if (strings == NULL) return 3;
    for (size_t a = 0; a < job->attribute_count; a++) {
        strings[a] = (char **)calloc(job->counts[a] ? job->counts[a] : 1, sizeof(char *));
        if (strings[a] == NULL) return 3;
        if (H5Aread(job->attributes[a], job->memory_types[a], strings[a]) < 0) return hdf5_write_error(fd);
    }
    if (!hdf5_write_all(fd, "S", 1)) return 4;
    for (size_t a = 0; a < job->attribute_count; a++) {
        for (size_t i = 0; i < job->counts[a]; i++) {
            const char *string = strings[a][i];
            if (!hdf5_write_record(fd, string, string ? strlen(string) : 0)) return 4;
        }
    }
    return 0;
}

/// What the link-name job lists: the links of each of `group_count`
/// groups, at most `max_links` each.
typedef struct {
    const hid_t *groups;
    size_t group_count;
    hid_t link_access;
    uint64_t max_links;
} hdf5_links_job;

/// The groups' info too is read here: on a corrupt symbol-table group
/// libhdf5 1.10.8 copies from a null pointer while counting its links
/// (H5Gget_info -> H5G__stab_count -> H5B_iterate -> H5F__accum_read).
/// Every group is counted before anything is sent, so that an error in any
/// of them is the whole answer ('E').
static inline int hdf5_link_names_job(int fd, const void *context) {
    const hdf5_links_job *job = (const hdf5_links_job *)context;
    char name[1 << 16];
    for (size_t g = 0; g < job->group_count; g++) {
        H5G_info_t info;
        if (H5Gget_info(job->groups[g], &info) < 0) return hdf5_write_error(fd);
        if (info.nlinks > job->max_links) {
            int length = snprintf(name, sizeof name, "the group declares %llu links, more than %llu",
                                  (unsigned long long)info.nlinks, (unsigned long long)job->max_links);
            return hdf5_write_all(fd, "E", 1) && hdf5_write_all(fd, name, (size_t)length) ? 0 : 4;
        }
    }
    if (!hdf5_write_all(fd, "S", 1)) return 4;
    for (size_t g = 0; g < job->group_count; g++) {
        H5G_info_t info;
        if (H5Gget_info(job->groups[g], &info) < 0) return 4;
        // First record of a group: the number of its links, in decimal.
        int digits = snprintf(name, sizeof name, "%llu", (unsigned long long)info.nlinks);
        if (!hdf5_write_record(fd, name, (size_t)digits)) return 4;
        for (uint64_t i = 0; i < info.nlinks; i++) {
            ssize_t length = H5Lget_name_by_idx(job->groups[g], ".", H5_INDEX_NAME, H5_ITER_INC, (hsize_t)i, name,
                                                sizeof name, job->link_access);
            // Too long or unreadable: a record of UINT64_MAX tells the parent.
            if (length < 0 || (size_t)length >= sizeof name) {
                if (!hdf5_write_record(fd, NULL, 0)) return 4;
                continue;
            }
            if (!hdf5_write_record(fd, name, (size_t)length)) return 4;
        }
    }
    return 0;
}

/// How much the child's data (heap and private mappings) may grow beyond
/// what it inherited: libhdf5 allocates what a hostile file declares
/// (2 GB for one attribute was seen, finding 11 of Fuzzing/RESULTS.md).
#define HDF5_ISOLATED_DATA_GROWTH ((rlim_t)512 << 20)

/// Caps the child's data segment (RLIMIT_DATA, which Linux counts over
/// private writable mappings as well as the heap since 4.7) at what it has
/// plus `growth`: an allocation past it fails inside libhdf5, which reports
/// an error or aborts, either of which the parent turns into one. Not
/// under AddressSanitizer, whose shadow memory is such a mapping.
static inline void hdf5_limit_data_growth(rlim_t growth) {
#if defined(__linux__)
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
    return;
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
    return;
#endif
    FILE *status = fopen("/proc/self/status", "r");
    if (status == NULL) return;
    char line[256];
    unsigned long long kilobytes = 0;
    int found = 0;
    while (!found && fgets(line, sizeof line, status) != NULL) {
        found = sscanf(line, "VmData: %llu kB", &kilobytes) == 1;
    }
    fclose(status);
    if (!found) return;
    struct rlimit limit;
    if (getrlimit(RLIMIT_DATA, &limit) != 0) return;
    rlim_t wanted = (rlim_t)kilobytes * 1024 + growth;
    if (limit.rlim_max != RLIM_INFINITY && wanted > limit.rlim_max) wanted = limit.rlim_max;
    if (limit.rlim_cur == RLIM_INFINITY || wanted < limit.rlim_cur) {
        limit.rlim_cur = wanted;
        setrlimit(RLIMIT_DATA, &limit);
    }
#else
    (void)growth;
#endif
}

/// The child: runs `job`, never returns. It never outlives `parent` nor
/// `timeout_seconds` (plus one), even when the parent is killed while waiting.
static inline void hdf5_isolated_child(int fd, hdf5_isolated_job job, const void *context,
                                       pid_t parent, int timeout_seconds, const sigset_t *mask) {
    // No crash reporter inherited from the parent (Swift's backtracer).
    int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGPIPE, SIGALRM};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) signal(signals[i], SIG_DFL);
    pthread_sigmask(SIG_SETMASK, mask, NULL);
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    if (getppid() != parent) _exit(5);  // the parent died before prctl
    // A shorter timer already set by a fork handler (the fuzzers') stays.
    struct itimerval pending;
    if (getitimer(ITIMER_REAL, &pending) == 0 && !timerisset(&pending.it_value)) alarm((unsigned)timeout_seconds + 1);
    hdf5_limit_data_growth(HDF5_ISOLATED_DATA_GROWTH);
    _exit(job(fd, context));  // no atexit handlers: the parent owns the HDF5 state
}

/// Runs `job` in a forked child process and collects what it sends: refuses
/// more than `max_bytes` and gives up after `timeout_seconds` without any.
/// Call with no other thread inside libhdf5.
static inline hdf5_isolated_result hdf5_run_isolated(hdf5_isolated_job job, const void *context,
                                                     size_t max_bytes, int timeout_seconds) {
    hdf5_isolated_result result = {HDF5_ISOLATED_SYSTEM_ERROR, 0, NULL, 0};
    int fds[2];
    if (pipe(fds) != 0) {
        result.code = errno;
        return result;
    }
    // Not inherited by programs other threads may start.
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    pid_t parent = getpid();
    // No signal handler runs while fork() holds the allocator's locks: a
    // handler that allocates (libFuzzer's timeout report did) would wait on
    // them forever. A signal that arrives meanwhile is delivered right after.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &previous);
    pid_t child = fork();
    int fork_error = errno;
    if (child == 0) {
        close(fds[0]);
        hdf5_isolated_child(fds[1], job, context, parent, timeout_seconds, &previous);
    }
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (child < 0) {
        result.code = fork_error;
        close(fds[0]);
        close(fds[1]);
        return result;
    }
    close(fds[1]);
    size_t capacity = 4096;
    char *data = (char *)malloc(capacity);
    int ended = 0, stop = 0;
    while (data != NULL && !ended && !stop) {
        struct pollfd waiting = {fds[0], POLLIN, 0};
        int ready = poll(&waiting, 1, timeout_seconds * 1000);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) {
            result.status = HDF5_ISOLATED_TIMED_OUT;
            result.code = timeout_seconds;
            stop = 1;
            break;
        }
        if (result.size == capacity) {
            if (capacity > max_bytes + 1) {
                result.status = HDF5_ISOLATED_TOO_LARGE;
                stop = 1;
                break;
            }
            char *larger = (char *)realloc(data, capacity * 2);
            if (larger == NULL) break;
            data = larger;
            capacity *= 2;
        }
        ssize_t got = read(fds[0], data + result.size, capacity - result.size);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) ended = 1;
        else result.size += (size_t)got;
    }
    close(fds[0]);
    if (!ended) kill(child, SIGKILL);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    if (data == NULL || (!ended && !stop)) {
        free(data);
        result.status = HDF5_ISOLATED_SYSTEM_ERROR;
        result.code = ENOMEM;
        result.size = 0;
        return result;
    }
    if (stop) {
        free(data);
        result.size = 0;
        return result;
    }
    if (WIFSIGNALED(status) || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || result.size == 0) {
        free(data);
        result.status = WIFSIGNALED(status) ? HDF5_ISOLATED_CRASHED : HDF5_ISOLATED_FAILED;
        result.code = WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status);
        result.size = 0;
        return result;
    }
    result.status = data[0] == 'S' ? HDF5_ISOLATED_READ : HDF5_ISOLATED_HDF5_ERROR;
    memmove(data, data + 1, result.size - 1);
    result.size -= 1;
    result.data = data;
    return result;
}

/// Reads the variable-length strings of `attribute_count` attributes (each
/// scalar or 1-D, read with its variable-length string type) in one child
/// process: `data` holds, per string, its length as a native uint64_t
/// (UINT64_MAX for a null string) and its bytes: the first attribute's
/// `counts[0]` strings, then the second's, and so on. An error or crash in
/// any of them fails them all.
static inline hdf5_isolated_result hdf5_read_strings_batch_isolated(const hid_t *attributes, const hid_t *memory_types,
                                                                    const size_t *counts, size_t attribute_count,
                                                                    size_t max_bytes, int timeout_seconds) {
    hdf5_strings_batch_job job = {attributes, memory_types, counts, attribute_count};
    return hdf5_run_isolated(hdf5_read_strings_batch_job, &job, max_bytes, timeout_seconds);
}

/// Lists the names of the links of each of `group_count` groups by name
/// order in one child process (refusing a group of more than `max_links`):
/// `data` holds, per group, a record with their number in decimal, then per
/// link its name's length as a native uint64_t and its bytes (UINT64_MAX and
/// no bytes for a name it could not read). An error in any group fails all.
static inline hdf5_isolated_result hdf5_link_names_isolated(const hid_t *groups, size_t group_count, hid_t link_access,
                                                            uint64_t max_links, size_t max_bytes, int timeout_seconds) {
    hdf5_links_job job = {groups, group_count, link_access, max_links};
    return hdf5_run_isolated(hdf5_link_names_job, &job, max_bytes, timeout_seconds);
}

#endif
