// See include/sxk_edit.h: libedit resolved with dlopen/dlsym on first use.
#include "sxk_edit.h"
#include "sxk_dl.h"
#include <dlfcn.h>

static struct {
    EditLine *(*el_init)(const char *, FILE *, FILE *, FILE *);
    void (*el_end)(EditLine *);
    void (*el_reset)(EditLine *);
    const char *(*el_gets)(EditLine *, int *);
    int (*el_set)(EditLine *, int, ...);
    int (*el_get)(EditLine *, int, ...);
    int (*el_source)(EditLine *, const char *);
    void (*el_resize)(EditLine *);
    const LineInfo *(*el_line)(EditLine *);
    int (*el_insertstr)(EditLine *, const char *);
    void (*el_deletestr)(EditLine *, int);
    History *(*history_init)(void);
    void (*history_end)(History *);
    int (*history)(History *, HistEvent *, int, ...);
} api;

static const char *const sonames[] = {
#ifdef __APPLE__
    "libedit.3.dylib",
#else
    // Debian's and Ubuntu's soname (libedit2), then the one Fedora, Arch and Alpine ship.
    "libedit.so.2", "libedit.so.0",
#endif
    NULL};
static const sxk_dl_symbol symbols[] = {
    SXK_DL_SYMBOL(api, el_init), SXK_DL_SYMBOL(api, el_end), SXK_DL_SYMBOL(api, el_reset),
    SXK_DL_SYMBOL(api, el_gets), SXK_DL_SYMBOL(api, el_set), SXK_DL_SYMBOL(api, el_get),
    SXK_DL_SYMBOL(api, el_source), SXK_DL_SYMBOL(api, el_resize), SXK_DL_SYMBOL(api, el_line),
    SXK_DL_SYMBOL(api, el_insertstr), SXK_DL_SYMBOL(api, el_deletestr), SXK_DL_SYMBOL(api, history_init),
    SXK_DL_SYMBOL(api, history_end), SXK_DL_SYMBOL(api, history),
};
// RTLD_NOW: a library missing a function fails at the load, as one message, not at a key press.
static sxk_dl_library library = SXK_DL_LIBRARY("libedit", sonames, RTLD_NOW | RTLD_LOCAL, symbols, "install libedit: apt-get install libedit2");

int sxk_edit_load(void) { return sxk_dl_load(&library); }

const char *sxk_edit_load_error(void) { return library.error; }

EditLine *sxk_el_init(const char *program, FILE *in, FILE *out, FILE *err) { return api.el_init(program, in, out, err); }
void sxk_el_end(EditLine *el) { api.el_end(el); }
void sxk_el_reset(EditLine *el) { api.el_reset(el); }
const char *sxk_el_gets(EditLine *el, int *count) { return api.el_gets(el, count); }
int sxk_el_source(EditLine *el, const char *path) { return api.el_source(el, path); }
void sxk_el_resize(EditLine *el) { api.el_resize(el); }
const LineInfo *sxk_el_line(EditLine *el) { return api.el_line(el); }
int sxk_el_insertstr(EditLine *el, const char *text) { return api.el_insertstr(el, text); }
void sxk_el_deletestr(EditLine *el, int count) { api.el_deletestr(el, count); }

int sxk_el_set_prompt_esc(EditLine *el, sxk_prompt_fn fn, char marker) { return api.el_set(el, EL_PROMPT_ESC, fn, marker); }
int sxk_el_set_clientdata(EditLine *el, void *data) { return api.el_set(el, EL_CLIENTDATA, data); }
void *sxk_el_get_clientdata(EditLine *el) {
    void *data = NULL;
    api.el_get(el, EL_CLIENTDATA, &data);
    return data;
}
int sxk_el_addfn(EditLine *el, const char *name, const char *help, sxk_edit_fn fn) { return api.el_set(el, EL_ADDFN, name, help, fn); }
int sxk_el_bind(EditLine *el, const char *key, const char *fn) { return api.el_set(el, EL_BIND, key, fn, NULL); }
int sxk_el_editor(EditLine *el, const char *mode) { return api.el_set(el, EL_EDITOR, mode); }
int sxk_el_signal(EditLine *el, int on) { return api.el_set(el, EL_SIGNAL, on); }
int sxk_el_set_history(EditLine *el, History *h) { return api.el_set(el, EL_HIST, api.history, h); }
int sxk_el_refresh(EditLine *el) { return api.el_set(el, EL_REFRESH); }
int sxk_el_set_getcfn(EditLine *el, el_rfunc_t fn) { return api.el_set(el, EL_GETCFN, fn); }
int sxk_el_get_columns(EditLine *el) {
    int cols = 0;
    if (api.el_get(el, EL_GETTC, "co", &cols, NULL) != 0) return 0;
    return cols;
}

History *sxk_history_init(void) { return api.history_init(); }
void sxk_history_end(History *h) { api.history_end(h); }
int sxk_history_setsize(History *h, HistEvent *ev, int size) { return api.history(h, ev, H_SETSIZE, size); }
int sxk_history_setunique(History *h, HistEvent *ev, int on) { return api.history(h, ev, H_SETUNIQUE, on); }
int sxk_history_enter(History *h, HistEvent *ev, const char *line) { return api.history(h, ev, H_ENTER, line); }
int sxk_history_load(History *h, HistEvent *ev, const char *path) { return api.history(h, ev, H_LOAD, path); }
int sxk_history_save_fp(History *h, HistEvent *ev, FILE *fp) { return api.history(h, ev, H_SAVE_FP, fp); }
int sxk_history_last(History *h, HistEvent *ev) { return api.history(h, ev, H_LAST); }
int sxk_history_prev(History *h, HistEvent *ev) { return api.history(h, ev, H_PREV); }
