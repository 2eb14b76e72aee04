// libjq for Swift (`--jq`): loaded on first use (dlopen, RTLD_LOCAL), so a start without `--jq`
// does not map libjq and libonig (docs/architecture.md, "Libraries are loaded when first needed").
// Plain wrappers for the calls sxk makes, callable from Swift. Debian's libjq-dev gives the headers
// (on the default include path; no pkg-config file there); no symbol of libjq is linked.
#ifndef SXK_JQ_H
#define SXK_JQ_H
#include <jq.h>

/// Loads libjq once per process (thread-safe). 0 on success; else -1, and sxk_jq_load_error() says
/// why (the dynamic loader's message and the package to install).
int sxk_jq_load(void);
const char *sxk_jq_load_error(void);

// Everything below requires a successful sxk_jq_load() first.
jq_state *sxk_jq_init(void);
void sxk_jq_teardown(jq_state **jq);
void sxk_jq_set_error_cb(jq_state *jq, jq_msg_cb cb, void *data);
int sxk_jq_compile(jq_state *jq, const char *program);
void sxk_jq_start(jq_state *jq, jv value, int flags);
jv sxk_jq_next(jq_state *jq);
int sxk_jq_halted(jq_state *jq);
jv sxk_jq_get_exit_code(jq_state *jq);
jv sxk_jq_get_error_message(jq_state *jq);
/// Module search path: an empty list, so `import`/`include` fail with "module not found" instead of
/// reading files (with no path set, jq 1.6 aborts on an assertion).
void sxk_jq_no_library_path(jq_state *jq);

jv_kind sxk_jv_get_kind(jv value);
jv sxk_jv_copy(jv value);
void sxk_jv_free(jv value);
int sxk_jv_invalid_has_msg(jv value);
jv sxk_jv_invalid_get_msg(jv value);
double sxk_jv_number_value(jv value);
int sxk_jv_string_length_bytes(jv value);
const char *sxk_jv_string_value(jv value);
jv sxk_jv_dump_string(jv value, int flags);
jv sxk_jv_parse_sized(const char *text, int length);

#endif
