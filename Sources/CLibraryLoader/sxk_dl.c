// See include/sxk_dl.h.
#include "sxk_dl.h"
#include <dlfcn.h>
#include <stdio.h>

void *sxk_dl_open(const char *library, const char *const *sonames, int flags, const sxk_dl_symbol *symbols,
                  size_t count, const char *hint, char *error, size_t error_size) {
    void *handle = NULL;
    // The first soname's reason is the one shown (the later ones are other systems' names); copied at
    // once, since the next dlopen overwrites dlerror's text.
    char reason[384] = "";
    for (const char *const *soname = sonames; *soname && !handle; soname++) {
        handle = dlopen(*soname, flags);
        if (!handle && !reason[0]) {
            const char *why = dlerror();
            snprintf(reason, sizeof reason, "%s", why ? why : "unknown error");
        }
    }
    if (!handle) {
        snprintf(error, error_size, "%s could not be loaded: %s (%s)", library, reason, hint);
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        *symbols[i].slot = dlsym(handle, symbols[i].name);
        if (!*symbols[i].slot) {
            snprintf(error, error_size, "%s lacks %s (too old?)", library, symbols[i].name);
            return NULL;
        }
    }
    return handle;
}

int sxk_dl_load(sxk_dl_library *l) {
    pthread_mutex_lock(&l->lock);
    if (l->state == 0) {
        l->state = sxk_dl_open(l->library, l->sonames, l->flags, l->symbols, l->count, l->hint, l->error, sizeof l->error) ? 1 : -1;
    }
    int loaded = l->state == 1;
    pthread_mutex_unlock(&l->lock);
    return loaded ? 0 : -1;
}
