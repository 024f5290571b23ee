// How the package loads its optional C libraries (libhdf5, OpenBLAS, oneDNN)
// when first needed instead of linking them: the first of their usual names
// that dlopen finds, with the environment variables they read while they
// load set for the load only.
#ifndef CLIBRARYLOADING_LIBRARY_LOADING_H
#define CLIBRARYLOADING_LIBRARY_LOADING_H

#include <stddef.h>

/// An environment variable a library reads when it loads: set to `value`
/// for the load when the environment does not set `name` already (a set
/// one is never overwritten), taken back afterwards, so that the programs
/// this process starts see the environment as given. A NULL value: nothing.
struct library_setting {
    const char *name;
    const char *value;
};

/// Opens the first of the `count` `names` that dlopen finds (RTLD_NOW |
/// RTLD_LOCAL), with `settings` in force during the load. Returns the
/// handle, or NULL with why the first name failed (the likeliest to matter)
/// in `error` (`size` bytes). Changes the environment for the moment of the
/// load: another thread reading it then races, as with any setenv.
void *library_open(const char *const *names, size_t count, const struct library_setting *settings,
                   size_t setting_count, char *error, size_t size);

#endif
