// See library_loading.h.
#define _GNU_SOURCE
#include "library_loading.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

void *library_open(const char *const *names, size_t count, const struct library_setting *settings,
                   size_t setting_count, char *error, size_t size) {
    unsigned char set[16] = {0};  // which settings this call put into the environment
    for (size_t i = 0; i < setting_count && i < sizeof set; i++) {
        if (settings[i].value != NULL && getenv(settings[i].name) == NULL) {
            set[i] = setenv(settings[i].name, settings[i].value, 1) == 0;
        }
    }
    void *handle = NULL;
    if (size > 0) error[0] = '\0';
    for (size_t i = 0; i < count && handle == NULL; i++) {
        handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL && i == 0) snprintf(error, size, "%s", dlerror());
    }
    for (size_t i = 0; i < setting_count && i < sizeof set; i++) {
        if (set[i]) unsetenv(settings[i].name);
    }
    return handle;
}
