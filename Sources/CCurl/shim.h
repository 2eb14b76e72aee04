// Non-variadic wrappers around libcurl's variadic setopt/getinfo calls, callable from Swift,
// and the socket gate that keeps plain http on loopback (checked on the resolved address).
#ifndef SXK_CCURL_SHIM_H
#define SXK_CCURL_SHIM_H
#include <curl/curl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <string.h>
#include <stdlib.h>
#include <pthread.h>

typedef size_t (*sxk_curl_data_fn)(char *, size_t, size_t, void *);
typedef int (*sxk_curl_xferinfo_fn)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t);

static inline CURLcode sxk_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sxk_easy_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sxk_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sxk_easy_setopt_data_fn(CURL *h, CURLoption o, sxk_curl_data_fn v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sxk_easy_setopt_xferinfo_fn(CURL *h, sxk_curl_xferinfo_fn v) {
    return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, v);
}

static inline CURLcode sxk_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode sxk_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode sxk_easy_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }

static inline CURLSHcode sxk_share_setopt_long(CURLSH *s, CURLSHoption o, long v) { return curl_share_setopt(s, o, v); }
static inline CURLMcode sxk_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

/// Lock callbacks for a share handle: one mutex per kind of shared data, in an array made by
/// sxk_share_make_locks and passed as the share's user data (easy handles are cleaned up on
/// other threads than the one driving transfers, and both touch the shared caches).
static inline void sxk_share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *user) {
    (void)h; (void)access;
    pthread_mutex_lock(&((pthread_mutex_t *)user)[data]);
}
static inline void sxk_share_unlock(CURL *h, curl_lock_data data, void *user) {
    (void)h;
    pthread_mutex_unlock(&((pthread_mutex_t *)user)[data]);
}
static inline int sxk_share_set_locks(CURLSH *s) {
    pthread_mutex_t *locks = (pthread_mutex_t *)calloc(CURL_LOCK_DATA_LAST, sizeof(pthread_mutex_t));
    if (!locks) return -1;
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&locks[i], NULL);
    if (curl_share_setopt(s, CURLSHOPT_USERDATA, (void *)locks) != CURLSHE_OK) return -1;
    if (curl_share_setopt(s, CURLSHOPT_LOCKFUNC, sxk_share_lock) != CURLSHE_OK) return -1;
    if (curl_share_setopt(s, CURLSHOPT_UNLOCKFUNC, sxk_share_unlock) != CURLSHE_OK) return -1;
    return 0;
}

/// The result code of a finished transfer (CURLMsg keeps it in a union).
static inline CURLcode sxk_curl_msg_result(const CURLMsg *m) { return m->data.result; }

/// Where plain-http sockets may go. `allow_any` is set by --insecure-http; a refused address is
/// kept (as text) so the error can name it.
typedef struct {
    int allow_any;
    int refused;
    char address[INET6_ADDRSTRLEN];
} sxk_socket_gate;

/// 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104. 0.0.0.0 and every other address are not loopback.
static inline int sxk_sockaddr_is_loopback(const struct sockaddr *a) {
    if (a->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)a;
        return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    }
    if (a->sa_family == AF_INET6) {
        const struct in6_addr *v6 = &((const struct sockaddr_in6 *)a)->sin6_addr;
        if (IN6_IS_ADDR_LOOPBACK(v6)) return 1;
        return IN6_IS_ADDR_V4MAPPED(v6) && v6->s6_addr[12] == 127;
    }
    return 0;
}

/// CURLOPT_OPENSOCKETFUNCTION: opens the socket only for a loopback address (unless allowed),
/// so nothing is sent, not even a SYN, to an address a name resolved to off this machine.
static inline curl_socket_t sxk_gate_open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *a) {
    sxk_socket_gate *gate = (sxk_socket_gate *)clientp;
    (void)purpose;
    if (!gate->allow_any && !sxk_sockaddr_is_loopback(&a->addr)) {
        gate->refused = 1;
        const void *raw = a->family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)&a->addr)->sin6_addr
                                                : (const void *)&((const struct sockaddr_in *)&a->addr)->sin_addr;
        if (!inet_ntop(a->family, raw, gate->address, sizeof gate->address)) strcpy(gate->address, "?");
        return CURL_SOCKET_BAD;
    }
    return socket(a->family, a->socktype, a->protocol);
}

static inline CURLcode sxk_easy_set_socket_gate(CURL *h, sxk_socket_gate *gate) {
    CURLcode rc = curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, sxk_gate_open_socket);
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, gate);
}

#endif
