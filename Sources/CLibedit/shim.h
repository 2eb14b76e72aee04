// Non-variadic wrappers around libedit's variadic el_set/el_get/history, callable from Swift.
#ifndef SXK_CLIBEDIT_SHIM_H
#define SXK_CLIBEDIT_SHIM_H
#include <stdio.h>
#include <histedit.h>

typedef char *(*sxk_prompt_fn)(EditLine *);
typedef unsigned char (*sxk_edit_fn)(EditLine *, int);

static inline int sxk_el_set_prompt_esc(EditLine *el, sxk_prompt_fn fn, char marker) {
    return el_set(el, EL_PROMPT_ESC, fn, marker);
}
static inline int sxk_el_set_clientdata(EditLine *el, void *data) { return el_set(el, EL_CLIENTDATA, data); }
static inline void *sxk_el_get_clientdata(EditLine *el) {
    void *data = NULL;
    el_get(el, EL_CLIENTDATA, &data);
    return data;
}
static inline int sxk_el_addfn(EditLine *el, const char *name, const char *help, sxk_edit_fn fn) {
    return el_set(el, EL_ADDFN, name, help, fn);
}
static inline int sxk_el_bind(EditLine *el, const char *key, const char *fn) {
    return el_set(el, EL_BIND, key, fn, NULL);
}
static inline int sxk_el_editor(EditLine *el, const char *mode) { return el_set(el, EL_EDITOR, mode); }
static inline int sxk_el_signal(EditLine *el, int on) { return el_set(el, EL_SIGNAL, on); }
static inline int sxk_el_set_history(EditLine *el, History *h) { return el_set(el, EL_HIST, history, h); }
static inline int sxk_el_refresh(EditLine *el) { return el_set(el, EL_REFRESH); }
/* The character reader libedit calls for every key (EL_GETCFN): 1 with a character, 0 at end, -1 on error. */
static inline int sxk_el_set_getcfn(EditLine *el, el_rfunc_t fn) { return el_set(el, EL_GETCFN, fn); }
static inline int sxk_el_get_columns(EditLine *el) {
    int cols = 0;
    if (el_get(el, EL_GETTC, "co", &cols, NULL) != 0) return 0;
    return cols;
}

static inline int sxk_history_setsize(History *h, HistEvent *ev, int size) { return history(h, ev, H_SETSIZE, size); }
static inline int sxk_history_setunique(History *h, HistEvent *ev, int on) { return history(h, ev, H_SETUNIQUE, on); }
static inline int sxk_history_enter(History *h, HistEvent *ev, const char *line) { return history(h, ev, H_ENTER, line); }
static inline int sxk_history_load(History *h, HistEvent *ev, const char *path) { return history(h, ev, H_LOAD, path); }
static inline int sxk_history_save(History *h, HistEvent *ev, const char *path) { return history(h, ev, H_SAVE, path); }
static inline int sxk_history_save_fp(History *h, HistEvent *ev, FILE *fp) { return history(h, ev, H_SAVE_FP, fp); }
static inline int sxk_history_clear(History *h, HistEvent *ev) { return history(h, ev, H_CLEAR); }
static inline int sxk_history_first(History *h, HistEvent *ev) { return history(h, ev, H_FIRST); }
static inline int sxk_history_last(History *h, HistEvent *ev) { return history(h, ev, H_LAST); }
static inline int sxk_history_next(History *h, HistEvent *ev) { return history(h, ev, H_NEXT); }
static inline int sxk_history_prev(History *h, HistEvent *ev) { return history(h, ev, H_PREV); }
static inline int sxk_history_getsize(History *h, HistEvent *ev) { return history(h, ev, H_GETSIZE); }

#endif
