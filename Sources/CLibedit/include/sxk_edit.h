// libedit for Swift: loaded on first use (dlopen, RTLD_LOCAL), so a start that edits no line and
// reads no history — every one-shot but `history`, completion, scripts — does not map libedit and
// the libraries it needs (libtinfo, libbsd, libmd), nor search them when symbols are bound
// (docs/architecture.md, "Libraries are loaded when first needed"). Plain wrappers for everything
// sxk calls, the variadic el_set/el_get/history included, callable from Swift. The types and
// constants come from <histedit.h>; no symbol of libedit is linked.
#ifndef SXK_EDIT_H
#define SXK_EDIT_H
#include <stdio.h>
#include <histedit.h>

/// Loads libedit once per process (thread-safe). 0 on success; else -1, and sxk_edit_load_error()
/// says why (the dynamic loader's message and the package to install).
int sxk_edit_load(void);
const char *sxk_edit_load_error(void);

// Everything below requires a successful sxk_edit_load() first.
EditLine *sxk_el_init(const char *program, FILE *in, FILE *out, FILE *err);
void sxk_el_end(EditLine *el);
void sxk_el_reset(EditLine *el);
const char *sxk_el_gets(EditLine *el, int *count);
int sxk_el_source(EditLine *el, const char *path);
void sxk_el_resize(EditLine *el);
const LineInfo *sxk_el_line(EditLine *el);
int sxk_el_insertstr(EditLine *el, const char *text);
void sxk_el_deletestr(EditLine *el, int count);

typedef char *(*sxk_prompt_fn)(EditLine *);
typedef unsigned char (*sxk_edit_fn)(EditLine *, int);

int sxk_el_set_prompt_esc(EditLine *el, sxk_prompt_fn fn, char marker);
int sxk_el_set_clientdata(EditLine *el, void *data);
void *sxk_el_get_clientdata(EditLine *el);
int sxk_el_addfn(EditLine *el, const char *name, const char *help, sxk_edit_fn fn);
int sxk_el_bind(EditLine *el, const char *key, const char *fn);
int sxk_el_editor(EditLine *el, const char *mode);
int sxk_el_signal(EditLine *el, int on);
int sxk_el_set_history(EditLine *el, History *h);
int sxk_el_refresh(EditLine *el);
/// The character reader libedit calls for every key (EL_GETCFN): 1 with a character, 0 at end, -1 on error.
int sxk_el_set_getcfn(EditLine *el, el_rfunc_t fn);
/// The terminal's columns as libedit knows them (EL_GETTC "co"); 0 if it cannot say.
int sxk_el_get_columns(EditLine *el);

History *sxk_history_init(void);
void sxk_history_end(History *h);
int sxk_history_setsize(History *h, HistEvent *ev, int size);
int sxk_history_setunique(History *h, HistEvent *ev, int on);
int sxk_history_enter(History *h, HistEvent *ev, const char *line);
int sxk_history_load(History *h, HistEvent *ev, const char *path);
int sxk_history_save_fp(History *h, HistEvent *ev, FILE *fp);
int sxk_history_last(History *h, HistEvent *ev);
int sxk_history_prev(History *h, HistEvent *ev);

#endif
