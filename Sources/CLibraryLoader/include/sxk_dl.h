// Opening a C library on first use (dlopen, dlsym): the step the libcurl, libedit and libjq shims
// share. Each shim keeps its own table of typed function pointers; this fills it.
#ifndef SXK_DL_H
#define SXK_DL_H
#include <pthread.h>
#include <stddef.h>

/// One function to resolve: its name in the library and the table slot that receives it.
typedef struct {
    const char *name;
    void **slot;
} sxk_dl_symbol;

/// A table slot for `name`: `SXK_DL_SYMBOL(api, el_init)` is `{"el_init", &api.el_init}`.
#define SXK_DL_SYMBOL(table, field) { #field, (void **)&(table).field }

/// Opens the first of `sonames` (NULL-ended) that loads, with `flags`, and fills every slot of
/// `symbols`. The library's handle, or NULL with one line in `error`: the loader's reason and
/// `hint` (what to install) when none loads, or the first name it lacks.
void *sxk_dl_open(const char *library, const char *const *sonames, int flags, const sxk_dl_symbol *symbols,
                  size_t count, const char *hint, char *error, size_t error_size);

/// A library opened once, when first asked for, by any thread (`sxk_dl_load`). Written as a static
/// with `SXK_DL_LIBRARY`; `error` holds the one line saying why, once a load has failed.
typedef struct {
    const char *library;
    const char *const *sonames;
    int flags;
    const sxk_dl_symbol *symbols;
    size_t count;
    const char *hint;
    pthread_mutex_t lock;
    int state;  // 0 not tried, 1 loaded, -1 failed
    char error[512];
} sxk_dl_library;

#define SXK_DL_LIBRARY(library, sonames, flags, symbols, hint) \
    { library, sonames, flags, symbols, sizeof symbols / sizeof symbols[0], hint, PTHREAD_MUTEX_INITIALIZER, 0, "" }

/// Opens `library` the first time (`sxk_dl_open`) and says how that went every time after: 0 when
/// loaded, else -1.
int sxk_dl_load(sxk_dl_library *library);

#endif
