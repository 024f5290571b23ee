#include "FuzzSupportC.h"

#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <unistd.h>

__attribute__((weak)) void __sanitizer_set_death_callback(void (*callback)(void));

static unsigned child_milliseconds;

static void in_child(void) {
    // libFuzzer would dump the parent's current input as a crash or timeout
    // artifact when the child dies, though dying is what the reader expects
    // of a child that meets a corrupt heap (Sources/CHDF5/isolated_read.h).
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(0);
    int signals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGTRAP, SIGALRM, SIGINT, SIGTERM, SIGUSR1, SIGUSR2};
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) signal(signals[i], SIG_DFL);
    // An orphan must not outlive a fuzzer that timed out and exited.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) _exit(127);
    if (child_milliseconds) {
        struct itimerval limit = {{0, 0}, {child_milliseconds / 1000, (child_milliseconds % 1000) * 1000}};
        setitimer(ITIMER_REAL, &limit, 0);
    }
}

void fuzz_guard_forked_children(unsigned milliseconds) {
    child_milliseconds = milliseconds;
    pthread_atfork(0, 0, in_child);
}
