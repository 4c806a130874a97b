/*
 * A SIP UDP socket whose system calls run on a thread of its own (one thread per UDP transport).
 *
 * Why by hand: with Node's dgram the event loop's thread makes every datagram's system call itself,
 * and on a virtual machine the largest part of a send is the kernel waking the receiving process on
 * another CPU (an exit to the hypervisor): about a tenth of the main thread's time at a few hundred
 * calls a second (bench/README.md, "SIP datagrams off the main thread"). No maintained npm package
 * moves a UDP socket's system calls off the loop's thread. Here a thread owns the socket: it reads
 * with recvmmsg and writes with sendmmsg, and trades datagrams with the event loop through two
 * single-producer, single-consumer rings. The loop is woken once per batch (uv_async); the thread
 * at most once per loop phase that queued sends (a uv_check and a uv_prepare handle flush them).
 *
 * Each ring is bytes of records, 8-byte aligned: a header (length, send number, port, family,
 * address) and then the datagram. A record that would not fit before the end of the ring leaves a
 * wrap marker there and starts at offset 0. Head and tail are byte counts that only grow: the
 * producer publishes its head with release order, the consumer its tail.
 *
 * Sends are numbered; the thread publishes the number of the last one it has handed to the kernel,
 * and the ones the kernel refused in a small ring of their own, so the loop settles every send on its
 * next wake, whatever number of datagrams are still waiting to be read. A datagram that finds the
 * inbound ring full is dropped and counted, as a full socket buffer would drop it; the kernel's own
 * drops (a full receive buffer) are read from the socket when asked (SO_MEMINFO). A send that finds
 * the outbound ring full is refused at once (-ENOBUFS).
 */
#define NAPI_VERSION 8
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <node_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#define INBOUND_BYTES (4u << 20)
#define OUTBOUND_BYTES (4u << 20)
#define MAX_DATAGRAM 65535u
#define RECEIVE_BATCH 16
#define SEND_BATCH 32
/* Datagrams handed to JavaScript per wake of the loop; the rest wait for the next iteration, so
   timers and other input keep their turn under a flood. */
#define DELIVER_PER_WAKE 32
#define WRAP UINT32_MAX
#define HEADER_BYTES 32u
/* Refused sends not yet reported; a power of two. Beyond it a refusal is lost and its send reported done. */
#define FAILURE_SLOTS 4096u

typedef struct {
  uint32_t length;
  uint32_t seq;
  uint16_t port;
  uint8_t family;
  uint8_t unused;
  uint8_t address[16];
} record_t;

_Static_assert(sizeof(record_t) <= HEADER_BYTES, "record header");

typedef struct {
  uint8_t *bytes;
  uint64_t capacity; /* a power of two */
  _Atomic uint64_t head;
  _Atomic uint64_t tail;
} ring_t;

typedef struct {
  uint32_t seq;
  int32_t err;
} failure_t;

typedef struct sip_udp {
  napi_env env;
  uv_loop_t *loop;
  uv_async_t wake_loop;
  uv_check_t check;
  uv_prepare_t prepare;
  napi_ref on_datagram;
  napi_ref on_sends_done;
  napi_ref resource;
  napi_async_context async_context;
  int fd;
  int epoll_fd;
  int wake_fd;
  int family;
  pthread_t thread;
  bool thread_running;
  ring_t inbound;
  ring_t outbound;
  /* Main thread only. */
  uint32_t next_seq;
  bool flush_pending;
  bool closed;
  uint32_t pending_closes;
  napi_async_cleanup_hook_handle cleanup_handle;
  /* Shared. */
  _Atomic bool stopping;
  _Atomic bool sleeping;
  _Atomic uint32_t sent_seq;
  _Atomic uint64_t dropped;
  /* Main thread only: the kernel's drop count when last read (SO_MEMINFO), kept once the socket is closed. */
  uint32_t kernel_dropped;
  /* Main thread only: the last sentThrough handed to JavaScript. */
  uint32_t reported_seq;
  failure_t failures[FAILURE_SLOTS];
  _Atomic uint32_t failure_head;
  _Atomic uint32_t failure_tail;
} sip_udp_t;

static uint64_t record_bytes(uint32_t length) { return (HEADER_BYTES + (uint64_t)length + 7u) & ~(uint64_t)7u; }

static bool ring_init(ring_t *ring, uint64_t capacity) {
  ring->bytes = malloc(capacity);
  ring->capacity = capacity;
  atomic_init(&ring->head, 0);
  atomic_init(&ring->tail, 0);
  return ring->bytes != NULL;
}

/* Producer: room for a record of `length` bytes, or NULL when the ring is full. */
static record_t *ring_reserve(ring_t *ring, uint32_t length, uint64_t *next_head) {
  uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);
  uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_acquire);
  uint64_t need = record_bytes(length);
  uint64_t at = head & (ring->capacity - 1);
  uint64_t contiguous = ring->capacity - at;
  uint64_t skip = contiguous < need ? contiguous : 0;
  if (head + skip + need - tail > ring->capacity) return NULL;
  if (skip > 0) {
    ((record_t *)(ring->bytes + at))->length = WRAP;
    at = 0;
  }
  *next_head = head + skip + need;
  return (record_t *)(ring->bytes + at);
}

static void ring_publish(ring_t *ring, uint64_t next_head) { atomic_store_explicit(&ring->head, next_head, memory_order_release); }

/* Consumer: the oldest record at or after *tail (which skips wrap markers), or NULL when empty. */
static record_t *ring_peek(ring_t *ring, uint64_t *tail) {
  uint64_t head = atomic_load_explicit(&ring->head, memory_order_acquire);
  if (*tail == head) return NULL;
  record_t *record = (record_t *)(ring->bytes + (*tail & (ring->capacity - 1)));
  if (record->length == WRAP) {
    *tail += ring->capacity - (*tail & (ring->capacity - 1));
    if (*tail == head) return NULL;
    record = (record_t *)ring->bytes;
  }
  return record;
}

static void ring_release(ring_t *ring, uint64_t tail) { atomic_store_explicit(&ring->tail, tail, memory_order_release); }

static bool ring_empty(ring_t *ring) {
  return atomic_load_explicit(&ring->head, memory_order_acquire) == atomic_load_explicit(&ring->tail, memory_order_relaxed);
}

/* ---- the socket's thread ---- */

/* Published before sent_seq covers `seq`, so the loop, reading sent_seq first, never takes it for a success. */
static void push_failure(sip_udp_t *s, uint32_t seq, int err) {
  uint32_t head = atomic_load_explicit(&s->failure_head, memory_order_relaxed);
  uint32_t tail = atomic_load_explicit(&s->failure_tail, memory_order_acquire);
  if (head - tail >= FAILURE_SLOTS) return;
  s->failures[head & (FAILURE_SLOTS - 1)] = (failure_t){.seq = seq, .err = err};
  atomic_store_explicit(&s->failure_head, head + 1, memory_order_release);
}

static void to_sockaddr(const record_t *record, struct sockaddr_storage *out, socklen_t *length) {
  memset(out, 0, sizeof *out);
  if (record->family == AF_INET) {
    struct sockaddr_in *in = (struct sockaddr_in *)out;
    in->sin_family = AF_INET;
    in->sin_port = htons(record->port);
    memcpy(&in->sin_addr, record->address, 4);
    *length = sizeof *in;
  } else {
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)out;
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(record->port);
    memcpy(&in6->sin6_addr, record->address, 16);
    *length = sizeof *in6;
  }
}

/* Sends everything queued, SEND_BATCH datagrams per system call; true when anything was sent. */
static bool send_queued(sip_udp_t *s, bool *failed) {
  bool any = false;
  uint64_t tail = atomic_load_explicit(&s->outbound.tail, memory_order_relaxed);
  for (;;) {
    struct mmsghdr messages[SEND_BATCH];
    struct iovec vectors[SEND_BATCH];
    struct sockaddr_storage to[SEND_BATCH];
    uint32_t seqs[SEND_BATCH];
    uint64_t tails[SEND_BATCH];
    int count = 0;
    uint64_t cursor = tail;
    while (count < SEND_BATCH) {
      record_t *record = ring_peek(&s->outbound, &cursor);
      if (record == NULL) break;
      memset(&messages[count], 0, sizeof messages[count]);
      vectors[count].iov_base = (uint8_t *)record + HEADER_BYTES;
      vectors[count].iov_len = record->length;
      to_sockaddr(record, &to[count], &messages[count].msg_hdr.msg_namelen);
      messages[count].msg_hdr.msg_name = &to[count];
      messages[count].msg_hdr.msg_iov = &vectors[count];
      messages[count].msg_hdr.msg_iovlen = 1;
      seqs[count] = record->seq;
      cursor += record_bytes(record->length);
      tails[count] = cursor;
      count++;
    }
    if (count == 0) break;
    int done = 0;
    while (done < count) {
      int n = sendmmsg(s->fd, messages + done, (unsigned)(count - done), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        /* The first unsent datagram failed; the ones after it are tried on. */
        push_failure(s, seqs[done], n < 0 ? errno : EIO);
        *failed = true;
        done++;
      } else {
        done += n;
      }
    }
    tail = tails[count - 1];
    ring_release(&s->outbound, tail);
    atomic_store_explicit(&s->sent_seq, seqs[count - 1], memory_order_release);
    any = true;
  }
  return any;
}

/* Reads what the socket holds into the inbound ring; true when anything was read. */
static bool receive_waiting(sip_udp_t *s, uint8_t *scratch) {
  bool any = false;
  for (int round = 0; round < 8; round++) {
    struct mmsghdr messages[RECEIVE_BATCH];
    struct iovec vectors[RECEIVE_BATCH];
    struct sockaddr_storage from[RECEIVE_BATCH];
    for (int i = 0; i < RECEIVE_BATCH; i++) {
      memset(&messages[i], 0, sizeof messages[i]);
      vectors[i].iov_base = scratch + (size_t)i * MAX_DATAGRAM;
      vectors[i].iov_len = MAX_DATAGRAM;
      messages[i].msg_hdr.msg_iov = &vectors[i];
      messages[i].msg_hdr.msg_iovlen = 1;
      messages[i].msg_hdr.msg_name = &from[i];
      messages[i].msg_hdr.msg_namelen = sizeof from[i];
    }
    int got = recvmmsg(s->fd, messages, RECEIVE_BATCH, MSG_DONTWAIT, NULL);
    if (got <= 0) break; /* EAGAIN, or an error queued on the socket: nothing to deliver */
    for (int i = 0; i < got; i++) {
      uint32_t length = messages[i].msg_len;
      if (messages[i].msg_hdr.msg_flags & MSG_TRUNC) continue;
      uint64_t next;
      record_t *record = ring_reserve(&s->inbound, length, &next);
      if (record == NULL) {
        atomic_fetch_add_explicit(&s->dropped, 1, memory_order_relaxed);
        continue;
      }
      memset(record, 0, HEADER_BYTES);
      record->length = length;
      if (from[i].ss_family == AF_INET) {
        struct sockaddr_in *in = (struct sockaddr_in *)&from[i];
        record->family = AF_INET;
        record->port = ntohs(in->sin_port);
        memcpy(record->address, &in->sin_addr, 4);
      } else {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&from[i];
        record->family = AF_INET6;
        record->port = ntohs(in6->sin6_port);
        memcpy(record->address, &in6->sin6_addr, 16);
      }
      memcpy((uint8_t *)record + HEADER_BYTES, vectors[i].iov_base, length);
      ring_publish(&s->inbound, next);
    }
    any = true;
    if (got < RECEIVE_BATCH) break;
  }
  return any;
}

static void *socket_thread(void *arg) {
  sip_udp_t *s = (sip_udp_t *)arg;
  uint8_t *scratch = malloc((size_t)RECEIVE_BATCH * MAX_DATAGRAM);
  if (scratch == NULL) return NULL;
  for (;;) {
    bool failed = false;
    bool sent = send_queued(s, &failed);
    bool received = receive_waiting(s, scratch);
    if (received || sent) uv_async_send(&s->wake_loop);
    if (received || sent) continue;
    if (atomic_load(&s->stopping)) break;
    /* Announce the sleep, then look once more (the loop checks `sleeping` after it publishes). */
    atomic_store(&s->sleeping, true);
    atomic_thread_fence(memory_order_seq_cst);
    if (!ring_empty(&s->outbound) || atomic_load(&s->stopping)) {
      atomic_store(&s->sleeping, false);
      continue;
    }
    struct epoll_event events[2];
    int n = epoll_wait(s->epoll_fd, events, 2, -1);
    atomic_store(&s->sleeping, false);
    for (int i = 0; i < n; i++) {
      if (events[i].data.fd == s->wake_fd) {
        uint64_t value;
        while (read(s->wake_fd, &value, sizeof value) > 0) {
        }
      }
    }
  }
  free(scratch);
  return NULL;
}

static void wake_thread(sip_udp_t *s) {
  uint64_t one = 1;
  ssize_t written = write(s->wake_fd, &one, sizeof one);
  (void)written; /* a full eventfd is already a wake-up */
}

/* ---- the event loop's side ---- */

static void flush(sip_udp_t *s) {
  if (!s->flush_pending || !s->thread_running) return;
  s->flush_pending = false;
  atomic_thread_fence(memory_order_seq_cst);
  if (atomic_load(&s->sleeping)) wake_thread(s);
}

static void on_check(uv_check_t *check) { flush((sip_udp_t *)check->data); }
static void on_prepare(uv_prepare_t *prepare) { flush((sip_udp_t *)prepare->data); }

static void call_js(sip_udp_t *s, napi_ref ref, size_t argc, napi_value *argv) {
  napi_env env = s->env;
  napi_value callback, resource, result;
  napi_get_reference_value(env, ref, &callback);
  napi_get_reference_value(env, s->resource, &resource);
  napi_status status = napi_make_callback(env, s->async_context, resource, callback, argc, argv, &result);
  if (status == napi_pending_exception) {
    napi_value error;
    napi_get_and_clear_last_exception(env, &error);
    napi_fatal_exception(env, error);
  }
}

#define FAILURES_PER_REPORT 64

/*
 * The sends done so far as (number of the last one, refusals among them as [seq, errno] pairs in
 * `failures`, their count returned). Only refusals of sends `*sent` covers are taken; when more are
 * waiting than fit, `*sent` is lowered to just before the first one left, for the next report.
 */
static int take_sends_done(sip_udp_t *s, uint32_t *sent, int32_t *failures) {
  *sent = atomic_load_explicit(&s->sent_seq, memory_order_acquire);
  uint32_t tail = atomic_load_explicit(&s->failure_tail, memory_order_relaxed);
  uint32_t head = atomic_load_explicit(&s->failure_head, memory_order_acquire);
  int count = 0;
  while (tail != head && (int32_t)(*sent - s->failures[tail & (FAILURE_SLOTS - 1)].seq) >= 0) {
    if (count == FAILURES_PER_REPORT) {
      *sent = s->failures[tail & (FAILURE_SLOTS - 1)].seq - 1;
      break;
    }
    failure_t failure = s->failures[tail & (FAILURE_SLOTS - 1)];
    failures[2 * count] = (int32_t)failure.seq;
    failures[2 * count + 1] = failure.err;
    count++;
    tail++;
  }
  atomic_store_explicit(&s->failure_tail, tail, memory_order_release);
  return count;
}

/* [sentThrough, failures | null] as JavaScript values. */
static void sends_done_values(napi_env env, uint32_t sent, const int32_t *failures, int count, napi_value *values) {
  napi_create_uint32(env, sent, &values[0]);
  if (count == 0) {
    napi_get_null(env, &values[1]);
    return;
  }
  void *data;
  napi_value buffer;
  napi_create_arraybuffer(env, (size_t)count * 2 * sizeof(int32_t), &data, &buffer);
  memcpy(data, failures, (size_t)count * 2 * sizeof(int32_t));
  napi_create_typedarray(env, napi_int32_array, (size_t)count * 2, buffer, 0, &values[1]);
}

/* The sends done since the last report, if any: one call, before any datagram. */
static void report_sends(sip_udp_t *s) {
  napi_env env = s->env;
  uint32_t sent;
  int32_t failures[2 * FAILURES_PER_REPORT];
  int count = take_sends_done(s, &sent, failures);
  /* A wake that only brought datagrams does not enter JavaScript for the sends. */
  if (count == 0 && sent == s->reported_seq) return;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  s->reported_seq = sent;
  napi_value argv[2];
  sends_done_values(env, sent, failures, count, argv);
  call_js(s, s->on_sends_done, 2, argv);
  napi_close_handle_scope(env, scope);
  if (sent != atomic_load_explicit(&s->sent_seq, memory_order_relaxed) && !s->closed) uv_async_send(&s->wake_loop);
}

/* The thread read datagrams or finished sends: settle the sends, then hand over the datagrams, each in its own call. */
static void on_wake(uv_async_t *async) {
  sip_udp_t *s = (sip_udp_t *)async->data;
  if (s->closed) return;
  report_sends(s);
  if (s->closed) return;
  napi_env env = s->env;
  uint64_t tail = atomic_load_explicit(&s->inbound.tail, memory_order_relaxed);
  for (int delivered = 0; delivered < DELIVER_PER_WAKE; delivered++) {
    record_t *record = ring_peek(&s->inbound, &tail);
    if (record == NULL) break;
    napi_handle_scope scope;
    if (napi_open_handle_scope(env, &scope) != napi_ok) break;
    napi_value argv[3];
    void *copy;
    napi_create_buffer_copy(env, record->length, (uint8_t *)record + HEADER_BYTES, &copy, &argv[0]);
    if (record->family == AF_INET) {
      uint32_t address;
      memcpy(&address, record->address, 4);
      napi_create_uint32(env, ntohl(address), &argv[1]);
    } else {
      char text[INET6_ADDRSTRLEN];
      inet_ntop(AF_INET6, record->address, text, sizeof text);
      napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &argv[1]);
    }
    napi_create_uint32(env, record->port, &argv[2]);
    tail += record_bytes(record->length);
    ring_release(&s->inbound, tail);
    call_js(s, s->on_datagram, 3, argv);
    napi_close_handle_scope(env, scope);
    if (s->closed) return;
  }
  if (!ring_empty(&s->inbound)) uv_async_send(&s->wake_loop);
}

static void stop_thread(sip_udp_t *s) {
  if (!s->thread_running) return;
  atomic_store(&s->stopping, true);
  wake_thread(s);
  pthread_join(s->thread, NULL);
  s->thread_running = false;
}

static void release_pending(sip_udp_t *s) {
  if (--s->pending_closes > 0) return;
  /* Every handle is closed: only now may Node go on and unload this library. */
  napi_remove_async_cleanup_hook(s->cleanup_handle);
  free(s->inbound.bytes);
  free(s->outbound.bytes);
  free(s);
}

static void on_handle_closed(uv_handle_t *handle) { release_pending((sip_udp_t *)handle->data); }

/*
 * Stops the thread (after it has sent what was queued), closes the socket and the loop's handles.
 * `env_alive`: called from JavaScript, so the references can be released (not while the
 * environment itself is being torn down).
 */
static void teardown(sip_udp_t *s, bool env_alive) {
  if (s->closed) return;
  s->closed = true;
  if (env_alive) {
    napi_delete_reference(s->env, s->on_datagram);
    napi_delete_reference(s->env, s->on_sends_done);
    napi_delete_reference(s->env, s->resource);
    napi_async_destroy(s->env, s->async_context);
  }
  stop_thread(s);
  if (s->fd >= 0) close(s->fd);
  if (s->epoll_fd >= 0) close(s->epoll_fd);
  if (s->wake_fd >= 0) close(s->wake_fd);
  s->fd = s->epoll_fd = s->wake_fd = -1;
  s->pending_closes = 3;
  uv_close((uv_handle_t *)&s->wake_loop, on_handle_closed);
  uv_close((uv_handle_t *)&s->check, on_handle_closed);
  uv_close((uv_handle_t *)&s->prepare, on_handle_closed);
}

/* The environment ends (process exit, worker end): close as socket.close() would; release_pending
   then removes this hook, which tells Node the cleanup is done. Closed already: its handles are
   still closing, and the same happens when they are. */
static void on_environment_ending(napi_async_cleanup_hook_handle handle, void *arg) {
  sip_udp_t *s = (sip_udp_t *)arg;
  if (!s->closed) teardown(s, false);
}

static napi_value throw_errno(napi_env env, const char *what, int err) {
  char message[160];
  snprintf(message, sizeof message, "%s: %s", what, strerror(err));
  char code[32];
  snprintf(code, sizeof code, "E%d", err);
  napi_throw_error(env, code, message);
  return NULL;
}

static sip_udp_t *self_of(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv) {
  napi_value self;
  napi_get_cb_info(env, info, argc, argv, &self, NULL);
  sip_udp_t *s = NULL;
  if (napi_unwrap(env, self, (void **)&s) != napi_ok || s == NULL || s->closed) {
    napi_throw_error(env, "ERR_SOCKET_CLOSED", "the SIP socket is closed");
    return NULL;
  }
  return s;
}

/* new SipUdpSocket(onDatagram(buffer, address, port), onSendsDone(sentThrough, failures | null)) */
static napi_value socket_construct(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], self;
  napi_get_cb_info(env, info, &argc, argv, &self, NULL);
  napi_valuetype first, second;
  if (argc < 2 || napi_typeof(env, argv[0], &first) != napi_ok || napi_typeof(env, argv[1], &second) != napi_ok ||
      first != napi_function || second != napi_function) {
    napi_throw_type_error(env, NULL, "SipUdpSocket(onDatagram, onSendsDone) needs two functions");
    return NULL;
  }
  sip_udp_t *s = calloc(1, sizeof *s);
  if (s == NULL) return throw_errno(env, "socket", ENOMEM);
  if (!ring_init(&s->inbound, INBOUND_BYTES) || !ring_init(&s->outbound, OUTBOUND_BYTES)) {
    free(s->inbound.bytes);
    free(s->outbound.bytes);
    free(s);
    return throw_errno(env, "socket", ENOMEM);
  }
  s->env = env;
  s->fd = s->epoll_fd = s->wake_fd = -1;
  atomic_init(&s->stopping, false);
  atomic_init(&s->sleeping, false);
  atomic_init(&s->sent_seq, 0);
  atomic_init(&s->dropped, 0);
  atomic_init(&s->failure_head, 0);
  atomic_init(&s->failure_tail, 0);
  napi_get_uv_event_loop(env, &s->loop);
  napi_create_reference(env, argv[0], 1, &s->on_datagram);
  napi_create_reference(env, argv[1], 1, &s->on_sends_done);
  napi_value resource, name;
  napi_create_object(env, &resource);
  napi_create_reference(env, resource, 1, &s->resource);
  napi_create_string_utf8(env, "SipUdpSocket", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, resource, name, &s->async_context);
  uv_async_init(s->loop, &s->wake_loop, on_wake);
  s->wake_loop.data = s;
  uv_unref((uv_handle_t *)&s->wake_loop); /* a bound socket keeps the loop alive, as dgram's does */
  uv_check_init(s->loop, &s->check);
  s->check.data = s;
  uv_check_start(&s->check, on_check);
  uv_unref((uv_handle_t *)&s->check);
  uv_prepare_init(s->loop, &s->prepare);
  s->prepare.data = s;
  uv_prepare_start(&s->prepare, on_prepare);
  uv_unref((uv_handle_t *)&s->prepare);
  napi_wrap(env, self, s, NULL, NULL, NULL);
  napi_add_async_cleanup_hook(env, on_environment_ending, s, &s->cleanup_handle);
  return self;
}

/*
 * socket.bind(address, port, bufferBytes) -> [boundPort, receiveBufferBytes]; throws with code E<errno>.
 * An IPv6 address binds a dual-stack socket (IPv4 peers appear as ::ffff:a.b.c.d), as dgram's udp6 does.
 */
static napi_value socket_bind(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  sip_udp_t *s = self_of(env, info, &argc, argv);
  if (s == NULL) return NULL;
  if (s->fd >= 0) {
    napi_throw_error(env, "ERR_SOCKET_BOUND", "the SIP socket is bound already");
    return NULL;
  }
  char address[INET6_ADDRSTRLEN + 1];
  size_t length = 0;
  uint32_t port = 0, buffer_bytes = 0;
  if (argc < 3 || napi_get_value_string_utf8(env, argv[0], address, sizeof address, &length) != napi_ok ||
      napi_get_value_uint32(env, argv[1], &port) != napi_ok || napi_get_value_uint32(env, argv[2], &buffer_bytes) != napi_ok ||
      port > 65535) {
    napi_throw_type_error(env, NULL, "bind(address, port, bufferBytes): bad arguments");
    return NULL;
  }
  struct sockaddr_storage bind_to;
  socklen_t bind_length;
  memset(&bind_to, 0, sizeof bind_to);
  struct sockaddr_in *in = (struct sockaddr_in *)&bind_to;
  struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&bind_to;
  if (inet_pton(AF_INET, address, &in->sin_addr) == 1) {
    in->sin_family = AF_INET;
    in->sin_port = htons((uint16_t)port);
    bind_length = sizeof *in;
  } else if (inet_pton(AF_INET6, address, &in6->sin6_addr) == 1) {
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons((uint16_t)port);
    bind_length = sizeof *in6;
  } else {
    napi_throw_type_error(env, NULL, "bind(address, port, bufferBytes) needs an IP address");
    return NULL;
  }
  int family = bind_to.ss_family;
  /* Blocking for sends (only the socket's own thread ever waits); reads pass MSG_DONTWAIT. */
  int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, "socket", errno);
  int off = 0;
  if (family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
  if (buffer_bytes > 0) {
    int bytes = (int)buffer_bytes;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
  }
  if (bind(fd, (struct sockaddr *)&bind_to, bind_length) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, "bind", err);
  }
  struct sockaddr_storage bound;
  socklen_t bound_length = sizeof bound;
  getsockname(fd, (struct sockaddr *)&bound, &bound_length);
  uint16_t bound_port = family == AF_INET ? ntohs(((struct sockaddr_in *)&bound)->sin_port) : ntohs(((struct sockaddr_in6 *)&bound)->sin6_port);
  int receive_buffer = 0;
  socklen_t option_length = sizeof receive_buffer;
  getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, &option_length);

  int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  int wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  struct epoll_event readable = {.events = EPOLLIN};
  int err = 0;
  if (epoll_fd < 0 || wake_fd < 0) err = errno;
  if (err == 0) {
    readable.data.fd = fd;
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &readable) != 0) err = errno;
  }
  if (err == 0) {
    readable.data.fd = wake_fd;
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, wake_fd, &readable) != 0) err = errno;
  }
  if (err != 0) {
    close(fd);
    if (epoll_fd >= 0) close(epoll_fd);
    if (wake_fd >= 0) close(wake_fd);
    return throw_errno(env, "epoll", err);
  }
  s->fd = fd;
  s->epoll_fd = epoll_fd;
  s->wake_fd = wake_fd;
  s->family = family;
  err = pthread_create(&s->thread, NULL, socket_thread, s);
  if (err != 0) {
    close(fd);
    close(epoll_fd);
    close(wake_fd);
    s->fd = s->epoll_fd = s->wake_fd = -1;
    return throw_errno(env, "pthread_create", err);
  }
  s->thread_running = true;
  uv_ref((uv_handle_t *)&s->wake_loop);
  napi_value result, value;
  napi_create_array_with_length(env, 2, &result);
  napi_create_uint32(env, bound_port, &value);
  napi_set_element(env, result, 0, value);
  napi_create_int32(env, receive_buffer, &value);
  napi_set_element(env, result, 1, value);
  return result;
}

/*
 * socket.send(bytes, offset, length, address, port) -> the send's number (> 0), or -errno at once:
 * EINVAL for an address of the other family, EMSGSIZE, ENOBUFS when the outbound ring is full.
 * Its outcome arrives later through onSendsDone.
 */
static napi_value socket_send(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  sip_udp_t *s = self_of(env, info, &argc, argv);
  if (s == NULL) return NULL;
  uint32_t offset = 0, length = 0, port = 0;
  napi_typedarray_type type;
  size_t elements = 0;
  void *bytes = NULL;
  char address[INET6_ADDRSTRLEN + 1];
  size_t address_length = 0;
  if (argc < 5 || napi_get_typedarray_info(env, argv[0], &type, &elements, &bytes, NULL, NULL) != napi_ok ||
      type != napi_uint8_array || napi_get_value_uint32(env, argv[1], &offset) != napi_ok ||
      napi_get_value_uint32(env, argv[2], &length) != napi_ok ||
      napi_get_value_string_utf8(env, argv[3], address, sizeof address, &address_length) != napi_ok ||
      napi_get_value_uint32(env, argv[4], &port) != napi_ok || (uint64_t)offset + length > elements || port > 65535 || port == 0) {
    napi_throw_type_error(env, NULL, "send(bytes, offset, length, address, port): bad arguments");
    return NULL;
  }
  int64_t result_value;
  record_t header;
  memset(&header, 0, sizeof header);
  bool ok = s->family == AF_INET ? inet_pton(AF_INET, address, header.address) == 1
                                 : inet_pton(AF_INET6, address, header.address) == 1;
  uint64_t next;
  record_t *record = NULL;
  if (s->fd < 0) {
    result_value = -EBADF;
  } else if (!ok) {
    result_value = -EINVAL;
  } else if (length > MAX_DATAGRAM) {
    result_value = -EMSGSIZE;
  } else if ((record = ring_reserve(&s->outbound, length, &next)) == NULL) {
    result_value = -ENOBUFS;
  } else {
    s->next_seq = s->next_seq == UINT32_MAX ? 1 : s->next_seq + 1;
    header.length = length;
    header.seq = s->next_seq;
    header.port = (uint16_t)port;
    header.family = (uint8_t)s->family;
    memcpy(record, &header, sizeof header);
    memcpy((uint8_t *)record + HEADER_BYTES, (uint8_t *)bytes + offset, length);
    ring_publish(&s->outbound, next);
    s->flush_pending = true;
    result_value = s->next_seq;
  }
  napi_value result;
  napi_create_int64(env, result_value, &result);
  return result;
}

/*
 * socket.dropped() -> [inboundRing, receiveBuffer]: datagrams dropped because the loop had not yet
 * taken the ones before them, and those the kernel dropped with the socket's receive buffer full.
 */
static napi_value socket_dropped(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  sip_udp_t *s = self_of(env, info, &argc, NULL);
  if (s == NULL) return NULL;
  napi_value ring, kernel, result;
  napi_create_double(env, (double)atomic_load(&s->dropped), &ring);
  if (s->fd >= 0) {
    /* The socket's own count, current (net/core/sock.c, sk_get_meminfo); 32 bits, it wraps. */
    uint32_t meminfo[SK_MEMINFO_VARS];
    socklen_t length = sizeof meminfo;
    if (getsockopt(s->fd, SOL_SOCKET, SO_MEMINFO, meminfo, &length) == 0 && length > SK_MEMINFO_DROPS * sizeof(uint32_t))
      s->kernel_dropped = meminfo[SK_MEMINFO_DROPS];
  }
  napi_create_uint32(env, s->kernel_dropped, &kernel);
  napi_create_array_with_length(env, 2, &result);
  napi_set_element(env, result, 0, ring);
  napi_set_element(env, result, 1, kernel);
  return result;
}

/*
 * socket.close() -> [sentThrough, failures | null] as onSendsDone would have them: the thread sends
 * what was queued, then stops; the socket is closed when this returns (its port free again), and no
 * callback follows.
 */
static napi_value socket_close(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  sip_udp_t *s = self_of(env, info, &argc, NULL);
  if (s == NULL) return NULL;
  teardown(s, true);
  uint32_t sent;
  int32_t failures[2 * FAILURES_PER_REPORT];
  int count = take_sends_done(s, &sent, failures);
  napi_value values[2], result;
  sends_done_values(env, sent, failures, count, values);
  napi_create_array_with_length(env, 2, &result);
  napi_set_element(env, result, 0, values[0]);
  napi_set_element(env, result, 1, values[1]);
  return result;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor methods[] = {
      {"bind", NULL, socket_bind, NULL, NULL, NULL, napi_default, NULL},
      {"send", NULL, socket_send, NULL, NULL, NULL, napi_default, NULL},
      {"dropped", NULL, socket_dropped, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, socket_close, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_value constructor;
  napi_define_class(env, "SipUdpSocket", NAPI_AUTO_LENGTH, socket_construct, NULL, sizeof methods / sizeof methods[0], methods,
                    &constructor);
  napi_set_named_property(env, exports, "SipUdpSocket", constructor);
  return exports;
}
