// What a program must undo when it is interrupted: temporary files it is
// writing and child processes it started. A signal handler (SIGINT, SIGTERM,
// SIGHUP) removes the files and kills the children, then re-raises the
// signal with its default action, so the program ends with the status a
// shell expects (128 + n) and leaves nothing behind. Only async-signal-safe
// calls run in the handler; the registry is a fixed table of slots.
#ifndef CFILEIO_H
#define CFILEIO_H

#include <sys/types.h>

/// Installs the handlers (once; later calls do nothing). A signal that was
/// ignored when the program started (nohup) stays ignored.
void fileio_install_cleanup_handlers(void);

/// Registers `path` (copied; at most 4095 bytes) to be unlinked if a signal
/// ends the program. Returns a slot for `fileio_forget`, or -1 when the
/// table is full or the path too long (the file is then not cleaned up).
int fileio_remember_file(const char *path);

/// Registers the folder `path` (a temporary package being written) to be
/// removed with everything in it if a signal ends the program (links are
/// removed, never followed; at most 8 levels deep; on Linux: elsewhere only
/// an empty folder is removed). Returns a slot for `fileio_forget`, or -1.
int fileio_remember_tree(const char *path);

/// Registers child process `pid` to be killed (SIGKILL) if a signal ends
/// the program. Returns a slot for `fileio_forget`, or -1.
int fileio_remember_child(pid_t pid);

/// Forgets a slot (the file was renamed or removed, the child reaped).
void fileio_forget(int slot);

/// Brackets a spawn and the registration of its child (with the cleanup
/// signals blocked in the calling thread): a handler running meanwhile on
/// another thread (a process-directed signal goes to any thread that does
/// not block it) waits for the registration, so the new child is killed too.
void fileio_begin_spawn(void);
void fileio_end_spawn(void);

/// What `fileio_run_child` did.
typedef struct {
    /// 0: the child ran and `status` is its wait status; 1: it ran past the
    /// time limit and was killed; 2: pipe, spawn or memory failed (`error`
    /// is errno); 3: it wrote more than the output limit and was killed.
    int outcome;
    int status;
    int error;
    /// What it wrote on its standard output and error (free() both).
    char *output, *errors;
    size_t output_length, errors_length;
} fileio_child_result;

/// Runs `argv[0]` (a path) with `argv` (NULL-terminated), feeding it `input`
/// on standard input and collecting its standard output and error, for at
/// most `timeout_ms` milliseconds and `max_output` bytes of each. The child
/// is registered for the signal cleanup while it runs, and is killed and
/// reaped on every way out, so it never outlives the call.
fileio_child_result fileio_run_child(char *const argv[], const char *input, size_t input_length,
                                     int timeout_ms, size_t max_output);

/// Swaps the two existing paths `first` and `second` (files or folders) in
/// one step (Linux renameat2 with RENAME_EXCHANGE): 0, or -1 with errno
/// (EINVAL or ENOSYS where the file system or system cannot).
int fileio_exchange(const char *first, const char *second);

#endif
