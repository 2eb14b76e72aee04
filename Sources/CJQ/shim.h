// Debian's libjq (libjq-dev) ships no pkg-config file: the headers are found on the default include
// path and the module map links `jq`. The helpers below stand in for jv.h's `static` (non-inline)
// function and give Swift plain calls for what it would otherwise spell out.
#ifndef SXK_CJQ_SHIM_H
#define SXK_CJQ_SHIM_H
#include <jq.h>

static inline int sxk_jv_is_valid(jv x) { return jv_get_kind(x) != JV_KIND_INVALID; }

// Module search path: an empty list, so `import`/`include` fail with "module not found" instead of
// reading files (with no path set, jq 1.6 aborts on an assertion).
static inline void sxk_jq_no_library_path(jq_state *jq) {
    jq_set_attr(jq, jv_string("JQ_LIBRARY_PATH"), jv_array());
}
#endif
