// libcurl for Swift: loaded on first use (dlopen, RTLD_LOCAL), so a start that sends nothing —
// `version`, completion, the REPL up to its first request — does not map libcurl and the ~30
// libraries it needs, nor search them when the binary's own symbols are bound (docs/architecture.md,
// "libcurl is loaded when first needed"). Non-variadic wrappers for setopt/getinfo, callable from
// Swift, and the socket gate that keeps plain http on loopback (checked on the resolved address).
// The constants and types come from Debian's <curl/curl.h>; no symbol of libcurl is linked.
#ifndef SXK_CCURL_H
#define SXK_CCURL_H
#include <curl/curl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

typedef size_t (*sxk_curl_data_fn)(char *, size_t, size_t, void *);
typedef int (*sxk_curl_xferinfo_fn)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t);

/// Loads libcurl once per process (thread-safe) and runs curl_global_init. 0 on success; else -1,
/// and sxk_curl_load_error() says why (the dynamic loader's message).
int sxk_curl_load(void);
const char *sxk_curl_load_error(void);
/// Starts sxk_curl_load() on a new detached thread and returns at once (0, or -1 if no thread could
/// be started), then calls `then` on that thread (if not NULL) whether the load worked or not. A
/// plain pthread: it starts in tens of microseconds, before any Swift or Foundation machinery, so
/// the load begins as early as the caller can ask for it. While it loads, the dynamic loader holds
/// the lock every pthread_create takes (glibc's TLS set-up): work that needs a thread of its own
/// once libcurl is loaded belongs in `then`, not in a thread the caller starts meanwhile. `then` may
/// keep the thread for good (the default stack, at least 1 MiB): sxk runs libcurl's transfers on it.
int sxk_curl_load_in_background(void (*then)(void));
/// Starts `run(arg)` on a detached thread made as the loading thread is (its stack, and every signal but
/// a fault's blocked, whatever the caller's mask): for libcurl's transfers when no loading thread runs
/// them. 0 when it started, else pthread's error.
int sxk_curl_start_thread(void (*run)(void *), void *arg);

// Everything below requires a successful sxk_curl_load() first.
CURL *sxk_curl_easy_init(void);
void sxk_curl_easy_cleanup(CURL *h);
const char *sxk_curl_easy_strerror(CURLcode code);
struct curl_slist *sxk_curl_slist_append(struct curl_slist *list, const char *text);
void sxk_curl_slist_free_all(struct curl_slist *list);
CURLM *sxk_curl_multi_init(void);
CURLMcode sxk_curl_multi_add_handle(CURLM *m, CURL *h);
CURLMcode sxk_curl_multi_remove_handle(CURLM *m, CURL *h);
CURLMcode sxk_curl_multi_perform(CURLM *m, int *running);
CURLMsg *sxk_curl_multi_info_read(CURLM *m, int *left);
CURLMcode sxk_curl_multi_poll(CURLM *m, int timeout_ms);
CURLMcode sxk_curl_multi_wakeup(CURLM *m);
CURLSH *sxk_curl_share_init(void);

CURLcode sxk_easy_setopt_long(CURL *h, CURLoption o, long v);
CURLcode sxk_easy_setopt_ptr(CURL *h, CURLoption o, const void *v);
CURLcode sxk_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v);
CURLcode sxk_easy_setopt_data_fn(CURL *h, CURLoption o, sxk_curl_data_fn v);
CURLcode sxk_easy_setopt_xferinfo_fn(CURL *h, sxk_curl_xferinfo_fn v);
CURLcode sxk_easy_getinfo_long(CURL *h, CURLINFO i, long *v);
CURLcode sxk_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v);
CURLcode sxk_easy_getinfo_string(CURL *h, CURLINFO i, char **v);
CURLSHcode sxk_share_setopt_long(CURLSH *s, CURLSHoption o, long v);
CURLMcode sxk_multi_setopt_long(CURLM *m, CURLMoption o, long v);

/// Lock callbacks for a share handle: one mutex per kind of shared data (easy handles are cleaned
/// up on other threads than the one driving transfers, and both touch the shared caches).
int sxk_share_set_locks(CURLSH *s);

/// The result code of a finished transfer (CURLMsg keeps it in a union).
CURLcode sxk_curl_msg_result(const CURLMsg *m);

/// Where plain-http sockets may go. `allow_any` is set by --insecure-http; a refused address is
/// kept (as text) so the error can name it.
typedef struct {
    int allow_any;
    int refused;
    char address[INET6_ADDRSTRLEN];
} sxk_socket_gate;

/// 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104. 0.0.0.0 and every other address are not loopback.
int sxk_sockaddr_is_loopback(const struct sockaddr *a);

/// Installs CURLOPT_OPENSOCKETFUNCTION: the socket is opened only for a loopback address (unless
/// allowed), so nothing is sent, not even a SYN, to an address a name resolved to off this machine;
/// and always close-on-exec (SOCK_CLOEXEC), so no child sxk starts inherits a connection.
CURLcode sxk_easy_set_socket_gate(CURL *h, sxk_socket_gate *gate);

#endif
