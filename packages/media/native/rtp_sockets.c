/*
 * Batched UDP sockets for RTP legs inside one thread (one hub per worker thread).
 *
 * Why by hand: Node's dgram enters JavaScript once per received datagram (with an ArrayBuffer and
 * an rinfo object each) and builds a send request per datagram; no maintained npm package offers
 * UDP sockets that batch across sockets for a libuv loop. Here every readable socket is drained in
 * C during libuv's poll phase (recvmmsg, one syscall per socket wake-up) into a ring the JavaScript
 * side shares, and JavaScript is entered once per loop iteration (a uv_check handle) for all the
 * datagrams of all the sockets. Sends are synchronous non-blocking sendto calls: an RTP packet the
 * kernel cannot take at once is dropped, as a full socket buffer would drop it later.
 *
 * Ring layout (shared with JavaScript, see src/rtp/native-leg-socket.ts):
 *   data: SLOTS datagrams of at most SLOT_BYTES bytes (longer ones are dropped), slot i at offset i * SLOT_BYTES;
 *   meta: SLOTS records of META_INTS int32: socket slot, socket generation, length, IPv4 address
 *         (host order), port;
 *   arrivals: SLOTS doubles: the kernel's receive time of each datagram in ms on CLOCK_MONOTONIC (the
 *         clock of process.hrtime), for sockets opened with timestamps; NaN for the others.
 * IPv4 only: IPv6 legs stay on dgram.
 *
 * Also here, as the package's one native library: setRealtimePriority(tid, priority), the
 * sched_setscheduler(2) call behind switchboard.conf `highpriority` (Node has no binding for it).
 */
#define NAPI_VERSION 8
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <node_api.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#define SLOTS 1024
#define SLOT_BYTES 2048
#define META_INTS 5
#define BATCH 16

typedef struct hub hub_t;

typedef struct {
  uv_poll_t poll;
  int fd;
  int32_t slot;
  int32_t generation;
  hub_t *hub;
  int closed_by_teardown;
  /* SO_TIMESTAMPNS is on: each datagram's receive time is read from its control message. */
  int timestamps;
} rtp_socket_t;

struct hub {
  napi_env env;
  uv_loop_t *loop;
  uv_check_t check;
  napi_ref callback;
  napi_ref resource;
  napi_async_context async_context;
  napi_ref data_ref;
  napi_ref meta_ref;
  napi_ref arrivals_ref;
  uint8_t *data;
  int32_t *meta;
  double *arrivals;
  uint32_t count;
  rtp_socket_t **sockets;
  int32_t *generations;
  uint32_t capacity;
  int closed;
  /* Teardown: handles still closing; the hub is freed (and Node may unload this library) after the last. */
  uint32_t pending_closes;
  napi_async_cleanup_hook_handle cleanup_handle;
};

static napi_value throw_errno(napi_env env, const char *what, int err) {
  char message[160];
  snprintf(message, sizeof message, "%s: %s", what, strerror(err));
  char code[32];
  snprintf(code, sizeof code, "E%d", err);
  napi_throw_error(env, code, message);
  return NULL;
}

static double timespec_ms(const struct timespec *time) { return (double)time->tv_sec * 1e3 + (double)time->tv_nsec / 1e6; }

/*
 * The kernel stamps a datagram on CLOCK_REALTIME; JavaScript times things on CLOCK_MONOTONIC. The
 * stamp's age on the first clock is the same on the second, so the arrival is "now" on the second
 * minus that age (a wall-clock step between the two reads would show as one bad stamp, not drift).
 */
static double arrival_ms(struct msghdr *header, double real_now_ms, double mono_now_ms) {
  for (struct cmsghdr *control = CMSG_FIRSTHDR(header); control != NULL; control = CMSG_NXTHDR(header, control)) {
    if (control->cmsg_level == SOL_SOCKET && control->cmsg_type == SCM_TIMESTAMPNS) {
      struct timespec stamp;
      memcpy(&stamp, CMSG_DATA(control), sizeof stamp);
      return mono_now_ms - (real_now_ms - timespec_ms(&stamp));
    }
  }
  return NAN;
}

static void on_readable(uv_poll_t *poll, int status, int events) {
  rtp_socket_t *sock = (rtp_socket_t *)poll->data;
  hub_t *hub = sock->hub;
  if (status < 0 || !(events & UV_READABLE)) return;
  for (;;) {
    uint32_t room = SLOTS - hub->count;
    if (room == 0) return; /* level-triggered: the kernel keeps the rest until the next iteration */
    uint32_t want = room < BATCH ? room : BATCH;
    struct mmsghdr messages[BATCH];
    struct iovec vectors[BATCH];
    struct sockaddr_in from[BATCH];
    union {
      char bytes[CMSG_SPACE(sizeof(struct timespec))];
      struct cmsghdr align;
    } controls[BATCH];
    for (uint32_t i = 0; i < want; i++) {
      vectors[i].iov_base = hub->data + (size_t)(hub->count + i) * SLOT_BYTES;
      vectors[i].iov_len = SLOT_BYTES;
      memset(&messages[i].msg_hdr, 0, sizeof messages[i].msg_hdr);
      messages[i].msg_hdr.msg_iov = &vectors[i];
      messages[i].msg_hdr.msg_iovlen = 1;
      messages[i].msg_hdr.msg_name = &from[i];
      messages[i].msg_hdr.msg_namelen = sizeof from[i];
      if (sock->timestamps) {
        messages[i].msg_hdr.msg_control = controls[i].bytes;
        messages[i].msg_hdr.msg_controllen = sizeof controls[i].bytes;
      }
    }
    int got = recvmmsg(sock->fd, messages, want, MSG_DONTWAIT, NULL);
    if (got <= 0) return; /* EAGAIN, or an ICMP error reported on the socket: nothing to deliver */
    double real_now_ms = NAN, mono_now_ms = NAN;
    if (sock->timestamps) {
      struct timespec real_now, mono_now;
      clock_gettime(CLOCK_REALTIME, &real_now);
      clock_gettime(CLOCK_MONOTONIC, &mono_now);
      real_now_ms = timespec_ms(&real_now);
      mono_now_ms = timespec_ms(&mono_now);
    }
    for (int i = 0; i < got; i++) {
      /* Longer than a slot: no audio RTP packet a leg accepts is, so it is dropped. */
      if (messages[i].msg_hdr.msg_flags & MSG_TRUNC) continue;
      int32_t *record = hub->meta + (size_t)hub->count * META_INTS;
      if (vectors[i].iov_base != hub->data + (size_t)hub->count * SLOT_BYTES) {
        memmove(hub->data + (size_t)hub->count * SLOT_BYTES, vectors[i].iov_base, messages[i].msg_len);
      }
      record[0] = sock->slot;
      record[1] = sock->generation;
      record[2] = (int32_t)messages[i].msg_len;
      record[3] = (int32_t)ntohl(from[i].sin_addr.s_addr);
      record[4] = ntohs(from[i].sin_port);
      hub->arrivals[hub->count] = sock->timestamps ? arrival_ms(&messages[i].msg_hdr, real_now_ms, mono_now_ms) : NAN;
      hub->count++;
    }
    if ((uint32_t)got < want) return;
  }
}

/* After the poll phase: one call into JavaScript for every datagram read in this iteration. */
static void on_check(uv_check_t *check) {
  hub_t *hub = (hub_t *)check->data;
  if (hub->count == 0 || hub->closed) return;
  napi_env env = hub->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value callback, resource, count, result;
  napi_get_reference_value(env, hub->callback, &callback);
  napi_get_reference_value(env, hub->resource, &resource);
  napi_create_uint32(env, hub->count, &count);
  hub->count = 0;
  napi_status status = napi_make_callback(env, hub->async_context, resource, callback, 1, &count, &result);
  if (status == napi_pending_exception) {
    napi_value error;
    napi_get_and_clear_last_exception(env, &error);
    napi_fatal_exception(env, error);
  }
  napi_close_handle_scope(env, scope);
}

static void release_pending(hub_t *hub) {
  if (--hub->pending_closes > 0) return;
  /* Every close callback has run: only now may Node go on and unload this library. */
  if (hub->cleanup_handle != NULL) napi_remove_async_cleanup_hook(hub->cleanup_handle);
  free(hub);
}

static void on_socket_closed(uv_handle_t *handle) {
  rtp_socket_t *sock = (rtp_socket_t *)handle->data;
  hub_t *hub = sock->hub;
  int counted = sock->closed_by_teardown;
  free(sock);
  if (counted) release_pending(hub);
}

static void close_socket(hub_t *hub, uint32_t slot, int teardown) {
  rtp_socket_t *sock = hub->sockets[slot];
  if (sock == NULL) return;
  hub->sockets[slot] = NULL;
  sock->closed_by_teardown = teardown;
  if (teardown) hub->pending_closes++;
  /* uv_close stops the poll and takes the fd out of epoll at once; the fd is closed right after, so
     the port is free when this returns (as dgram's is): a leg destroyed and made again may bind it. */
  uv_close((uv_handle_t *)&sock->poll, on_socket_closed);
  close(sock->fd);
}

static void on_check_closed(uv_handle_t *handle) { release_pending((hub_t *)handle->data); }

/*
 * When the thread's environment ends: closes every socket and the check handle (libuv work only;
 * the environment takes its references with it). A hub lives as long as its thread.
 */
static void hub_teardown(hub_t *hub) {
  if (hub->closed) return;
  hub->closed = 1;
  hub->pending_closes = 1; /* the check handle */
  for (uint32_t slot = 0; slot < hub->capacity; slot++) close_socket(hub, slot, 1);
  free(hub->sockets);
  free(hub->generations);
  hub->sockets = NULL;
  hub->capacity = 0;
  uv_check_stop(&hub->check);
  uv_close((uv_handle_t *)&hub->check, on_check_closed);
}

static void on_environment_ending(napi_async_cleanup_hook_handle handle, void *arg) {
  hub_t *hub = (hub_t *)arg;
  hub->cleanup_handle = handle;
  hub_teardown(hub);
}

static hub_t *hub_of(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv) {
  napi_value self;
  void *data;
  napi_get_cb_info(env, info, argc, argv, &self, &data);
  hub_t *hub = NULL;
  if (napi_unwrap(env, self, (void **)&hub) != napi_ok || hub == NULL || hub->closed) {
    napi_throw_error(env, "ERR_HUB_CLOSED", "the socket hub is closed");
    return NULL;
  }
  return hub;
}

/* new Hub(onDatagrams): the ring buffers are read back with hub.data / hub.meta / hub.arrivals. */
static napi_value hub_construct(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], self;
  napi_get_cb_info(env, info, &argc, argv, &self, NULL);
  napi_valuetype type;
  if (argc < 1 || napi_typeof(env, argv[0], &type) != napi_ok || type != napi_function) {
    napi_throw_type_error(env, NULL, "Hub(onDatagrams) needs a function");
    return NULL;
  }
  hub_t *hub = calloc(1, sizeof *hub);
  if (hub == NULL) return throw_errno(env, "hub", ENOMEM);
  hub->env = env;
  napi_get_uv_event_loop(env, &hub->loop);
  napi_create_reference(env, argv[0], 1, &hub->callback);
  napi_value data, meta_buffer, meta, arrivals_buffer, arrivals, resource, name;
  napi_create_arraybuffer(env, (size_t)SLOTS * SLOT_BYTES, (void **)&hub->data, &data);
  napi_create_arraybuffer(env, (size_t)SLOTS * META_INTS * sizeof(int32_t), (void **)&hub->meta, &meta_buffer);
  napi_create_typedarray(env, napi_int32_array, (size_t)SLOTS * META_INTS, meta_buffer, 0, &meta);
  napi_create_arraybuffer(env, (size_t)SLOTS * sizeof(double), (void **)&hub->arrivals, &arrivals_buffer);
  napi_create_typedarray(env, napi_float64_array, (size_t)SLOTS, arrivals_buffer, 0, &arrivals);
  napi_set_named_property(env, self, "data", data);
  napi_set_named_property(env, self, "meta", meta);
  napi_set_named_property(env, self, "arrivals", arrivals);
  napi_create_reference(env, data, 1, &hub->data_ref);
  napi_create_reference(env, meta, 1, &hub->meta_ref);
  napi_create_reference(env, arrivals, 1, &hub->arrivals_ref);
  napi_create_object(env, &resource);
  napi_create_reference(env, resource, 1, &hub->resource);
  napi_create_string_utf8(env, "RtpSocketHub", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, resource, name, &hub->async_context);
  uv_check_init(hub->loop, &hub->check);
  hub->check.data = hub;
  uv_check_start(&hub->check, on_check);
  uv_unref((uv_handle_t *)&hub->check); /* open sockets keep the loop alive, as dgram's do */
  napi_wrap(env, self, hub, NULL, NULL, NULL);
  napi_add_async_cleanup_hook(env, on_environment_ending, hub, NULL);
  return self;
}

/*
 * hub.open(address, port[, timestamps]) -> [slot, generation, boundPort]; throws with code E<errno>.
 * timestamps: the kernel stamps every datagram on arrival (SO_TIMESTAMPNS), read back from hub.arrivals.
 */
static napi_value hub_open(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  hub_t *hub = hub_of(env, info, &argc, argv);
  if (hub == NULL) return NULL;
  char address[64];
  size_t length = 0;
  uint32_t port = 0;
  if (argc < 2 || napi_get_value_string_utf8(env, argv[0], address, sizeof address, &length) != napi_ok ||
      napi_get_value_uint32(env, argv[1], &port) != napi_ok || port > 65535) {
    napi_throw_type_error(env, NULL, "open(address, port) needs an IPv4 address and a port");
    return NULL;
  }
  struct sockaddr_in bind_to;
  memset(&bind_to, 0, sizeof bind_to);
  bind_to.sin_family = AF_INET;
  bind_to.sin_port = htons((uint16_t)port);
  if (inet_pton(AF_INET, address, &bind_to.sin_addr) != 1) {
    napi_throw_type_error(env, NULL, "open(address, port) needs an IPv4 address");
    return NULL;
  }
  bool timestamps = false;
  if (argc >= 3 && napi_get_value_bool(env, argv[2], &timestamps) != napi_ok) {
    napi_throw_type_error(env, NULL, "open(address, port, timestamps): timestamps is a boolean");
    return NULL;
  }
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, "socket", errno);
  int on = 1;
  if (timestamps && setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, "setsockopt SO_TIMESTAMPNS", err);
  }
  if (bind(fd, (struct sockaddr *)&bind_to, sizeof bind_to) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, "bind", err);
  }
  struct sockaddr_in bound;
  socklen_t bound_length = sizeof bound;
  getsockname(fd, (struct sockaddr *)&bound, &bound_length);
  uint32_t slot = 0;
  while (slot < hub->capacity && hub->sockets[slot] != NULL) slot++;
  if (slot == hub->capacity) {
    uint32_t capacity = hub->capacity == 0 ? 64 : hub->capacity * 2;
    rtp_socket_t **sockets = realloc(hub->sockets, capacity * sizeof *sockets);
    int32_t *generations = sockets == NULL ? NULL : realloc(hub->generations, capacity * sizeof *generations);
    if (sockets != NULL) hub->sockets = sockets;
    if (sockets == NULL || generations == NULL) {
      close(fd);
      return throw_errno(env, "open", ENOMEM);
    }
    hub->generations = generations;
    for (uint32_t i = hub->capacity; i < capacity; i++) {
      hub->sockets[i] = NULL;
      hub->generations[i] = 0;
    }
    hub->capacity = capacity;
  }
  rtp_socket_t *sock = calloc(1, sizeof *sock);
  if (sock == NULL) {
    close(fd);
    return throw_errno(env, "open", ENOMEM);
  }
  sock->fd = fd;
  sock->slot = (int32_t)slot;
  sock->generation = ++hub->generations[slot];
  sock->hub = hub;
  sock->timestamps = timestamps;
  sock->poll.data = sock;
  int err = uv_poll_init_socket(hub->loop, &sock->poll, fd);
  if (err == 0) err = uv_poll_start(&sock->poll, UV_READABLE, on_readable);
  if (err != 0) {
    close(fd);
    free(sock);
    return throw_errno(env, "poll", -err);
  }
  hub->sockets[slot] = sock;
  napi_value result, value;
  napi_create_array_with_length(env, 3, &result);
  napi_create_int32(env, sock->slot, &value);
  napi_set_element(env, result, 0, value);
  napi_create_int32(env, sock->generation, &value);
  napi_set_element(env, result, 1, value);
  napi_create_uint32(env, ntohs(bound.sin_port), &value);
  napi_set_element(env, result, 2, value);
  return result;
}

/* hub.send(slot, bytes, offset, length, ipv4HostOrder, port) -> bytes sent, or -errno. */
static napi_value hub_send(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  hub_t *hub = hub_of(env, info, &argc, argv);
  if (hub == NULL) return NULL;
  uint32_t slot = 0, offset = 0, length = 0, address = 0, port = 0;
  napi_typedarray_type type;
  size_t elements = 0;
  void *bytes = NULL;
  if (argc < 6 || napi_get_value_uint32(env, argv[0], &slot) != napi_ok ||
      napi_get_typedarray_info(env, argv[1], &type, &elements, &bytes, NULL, NULL) != napi_ok ||
      type != napi_uint8_array || napi_get_value_uint32(env, argv[2], &offset) != napi_ok ||
      napi_get_value_uint32(env, argv[3], &length) != napi_ok || napi_get_value_uint32(env, argv[4], &address) != napi_ok ||
      napi_get_value_uint32(env, argv[5], &port) != napi_ok || (uint64_t)offset + length > elements || port > 65535) {
    napi_throw_type_error(env, NULL, "send(slot, bytes, offset, length, address, port): bad arguments");
    return NULL;
  }
  int32_t sent = -EBADF;
  if (slot < hub->capacity && hub->sockets[slot] != NULL) {
    struct sockaddr_in to;
    memset(&to, 0, sizeof to);
    to.sin_family = AF_INET;
    to.sin_port = htons((uint16_t)port);
    to.sin_addr.s_addr = htonl(address);
    ssize_t n = sendto(hub->sockets[slot]->fd, (uint8_t *)bytes + offset, length, MSG_DONTWAIT, (struct sockaddr *)&to, sizeof to);
    sent = n < 0 ? -errno : (int32_t)n;
  }
  napi_value result;
  napi_create_int32(env, sent, &result);
  return result;
}

/* hub.close(slot): stops and closes the socket; datagrams of it already in the ring are skipped by generation. */
static napi_value hub_close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  hub_t *hub = hub_of(env, info, &argc, argv);
  if (hub == NULL) return NULL;
  uint32_t slot = 0;
  if (argc < 1 || napi_get_value_uint32(env, argv[0], &slot) != napi_ok) {
    napi_throw_type_error(env, NULL, "close(slot) needs a slot");
    return NULL;
  }
  if (slot < hub->capacity) close_socket(hub, slot, 0);
  return NULL;
}

/* setRealtimePriority(tid, priority) -> 0, or the errno: SCHED_RR at that priority for one thread (a task on Linux). */
static napi_value set_realtime_priority(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int32_t tid = 0, priority = 0;
  if (argc < 2 || napi_get_value_int32(env, argv[0], &tid) != napi_ok || napi_get_value_int32(env, argv[1], &priority) != napi_ok ||
      tid < 0 || priority < sched_get_priority_min(SCHED_RR) || priority > sched_get_priority_max(SCHED_RR)) {
    napi_throw_type_error(env, NULL, "setRealtimePriority(tid, priority): a thread id and a SCHED_RR priority");
    return NULL;
  }
  struct sched_param param;
  memset(&param, 0, sizeof param);
  param.sched_priority = priority;
  int result = sched_setscheduler((pid_t)tid, SCHED_RR, &param) == 0 ? 0 : errno;
  napi_value value;
  napi_create_int32(env, result, &value);
  return value;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor methods[] = {
      {"open", NULL, hub_open, NULL, NULL, NULL, napi_default, NULL},
      {"send", NULL, hub_send, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, hub_close, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_value constructor, constants, value;
  napi_define_class(env, "Hub", NAPI_AUTO_LENGTH, hub_construct, NULL, sizeof methods / sizeof methods[0], methods, &constructor);
  napi_set_named_property(env, exports, "Hub", constructor);
  napi_value set_realtime;
  napi_create_function(env, "setRealtimePriority", NAPI_AUTO_LENGTH, set_realtime_priority, NULL, &set_realtime);
  napi_set_named_property(env, exports, "setRealtimePriority", set_realtime);
  napi_create_object(env, &constants);
  napi_create_uint32(env, SLOTS, &value);
  napi_set_named_property(env, constants, "slots", value);
  napi_create_uint32(env, SLOT_BYTES, &value);
  napi_set_named_property(env, constants, "slotBytes", value);
  napi_create_uint32(env, META_INTS, &value);
  napi_set_named_property(env, constants, "metaInts", value);
  napi_set_named_property(env, exports, "layout", constants);
  return exports;
}
