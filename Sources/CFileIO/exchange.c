// See CFileIO.h.
#define _GNU_SOURCE
#include "CFileIO.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int fileio_exchange(const char *first, const char *second) {
#if defined(__linux__) && defined(SYS_renameat2)
    // RENAME_EXCHANGE (linux/fs.h): both names must exist; swapped in one step.
    return (int)syscall(SYS_renameat2, AT_FDCWD, first, AT_FDCWD, second, 1 << 1);
#else
    (void)first;
    (void)second;
    errno = ENOSYS;
    return -1;
#endif
}
