// See include/sxk_jq.h: libjq resolved with dlopen/dlsym on first use.
#include "sxk_jq.h"
#include "sxk_dl.h"
#include <dlfcn.h>

static struct {
    jq_state *(*jq_init)(void);
    void (*jq_teardown)(jq_state **);
    void (*jq_set_error_cb)(jq_state *, jq_msg_cb, void *);
    int (*jq_compile)(jq_state *, const char *);
    void (*jq_start)(jq_state *, jv, int);
    jv (*jq_next)(jq_state *);
    int (*jq_halted)(jq_state *);
    jv (*jq_get_exit_code)(jq_state *);
    jv (*jq_get_error_message)(jq_state *);
    void (*jq_set_attr)(jq_state *, jv, jv);
    jv_kind (*jv_get_kind)(jv);
    jv (*jv_copy)(jv);
    void (*jv_free)(jv);
    int (*jv_invalid_has_msg)(jv);
    jv (*jv_invalid_get_msg)(jv);
    double (*jv_number_value)(jv);
    int (*jv_string_length_bytes)(jv);
    const char *(*jv_string_value)(jv);
    jv (*jv_dump_string)(jv, int);
    jv (*jv_parse_sized)(const char *, int);
    jv (*jv_string)(const char *);
    jv (*jv_array)(void);
} api;

static const char *const sonames[] = {
#ifdef __APPLE__
    "libjq.1.dylib",
#else
    "libjq.so.1",  // Debian's libjq1
#endif
    NULL};
static const sxk_dl_symbol symbols[] = {
    SXK_DL_SYMBOL(api, jq_init), SXK_DL_SYMBOL(api, jq_teardown), SXK_DL_SYMBOL(api, jq_set_error_cb),
    SXK_DL_SYMBOL(api, jq_compile), SXK_DL_SYMBOL(api, jq_start), SXK_DL_SYMBOL(api, jq_next),
    SXK_DL_SYMBOL(api, jq_halted), SXK_DL_SYMBOL(api, jq_get_exit_code), SXK_DL_SYMBOL(api, jq_get_error_message),
    SXK_DL_SYMBOL(api, jq_set_attr), SXK_DL_SYMBOL(api, jv_get_kind), SXK_DL_SYMBOL(api, jv_copy),
    SXK_DL_SYMBOL(api, jv_free), SXK_DL_SYMBOL(api, jv_invalid_has_msg), SXK_DL_SYMBOL(api, jv_invalid_get_msg),
    SXK_DL_SYMBOL(api, jv_number_value), SXK_DL_SYMBOL(api, jv_string_length_bytes), SXK_DL_SYMBOL(api, jv_string_value),
    SXK_DL_SYMBOL(api, jv_dump_string), SXK_DL_SYMBOL(api, jv_parse_sized), SXK_DL_SYMBOL(api, jv_string),
    SXK_DL_SYMBOL(api, jv_array),
};
// RTLD_NOW: a library missing a function fails at the load, as one message.
static sxk_dl_library library = SXK_DL_LIBRARY("libjq", sonames, RTLD_NOW | RTLD_LOCAL, symbols, "install libjq: apt-get install libjq1");

int sxk_jq_load(void) { return sxk_dl_load(&library); }

const char *sxk_jq_load_error(void) { return library.error; }

jq_state *sxk_jq_init(void) { return api.jq_init(); }
void sxk_jq_teardown(jq_state **jq) { api.jq_teardown(jq); }
void sxk_jq_set_error_cb(jq_state *jq, jq_msg_cb cb, void *data) { api.jq_set_error_cb(jq, cb, data); }
int sxk_jq_compile(jq_state *jq, const char *program) { return api.jq_compile(jq, program); }
void sxk_jq_start(jq_state *jq, jv value, int flags) { api.jq_start(jq, value, flags); }
jv sxk_jq_next(jq_state *jq) { return api.jq_next(jq); }
int sxk_jq_halted(jq_state *jq) { return api.jq_halted(jq); }
jv sxk_jq_get_exit_code(jq_state *jq) { return api.jq_get_exit_code(jq); }
jv sxk_jq_get_error_message(jq_state *jq) { return api.jq_get_error_message(jq); }
void sxk_jq_no_library_path(jq_state *jq) { api.jq_set_attr(jq, api.jv_string("JQ_LIBRARY_PATH"), api.jv_array()); }

jv_kind sxk_jv_get_kind(jv value) { return api.jv_get_kind(value); }
jv sxk_jv_copy(jv value) { return api.jv_copy(value); }
void sxk_jv_free(jv value) { api.jv_free(value); }
int sxk_jv_invalid_has_msg(jv value) { return api.jv_invalid_has_msg(value); }
jv sxk_jv_invalid_get_msg(jv value) { return api.jv_invalid_get_msg(value); }
double sxk_jv_number_value(jv value) { return api.jv_number_value(value); }
int sxk_jv_string_length_bytes(jv value) { return api.jv_string_length_bytes(value); }
const char *sxk_jv_string_value(jv value) { return api.jv_string_value(value); }
jv sxk_jv_dump_string(jv value, int flags) { return api.jv_dump_string(value, flags); }
jv sxk_jv_parse_sized(const char *text, int length) { return api.jv_parse_sized(text, length); }
