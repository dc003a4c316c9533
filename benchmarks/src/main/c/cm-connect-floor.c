/*
 * Copyright 2026 The netty-rdma Project
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *   https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

/*
 * The device's own floor under connection set-up, for scripts/scale-bench: COUNT connections from this
 * process to a listener in it over RDMA CM on ADDRESS, IN_FLIGHT of them being set up at a time, each
 * with an RC queue pair of its own, all kept open until the last is up, as the benchmark's idle ramp
 * keeps its connections. No JVM, no Netty, no message on the connections: what librdmacm, the kernel's
 * CM and the device take per connect (address and route resolution, the queue pairs, the CM's
 * exchange). The listener accepts on a thread of its own, as a server process would.
 *
 *   cm-connect-floor ADDRESS COUNT IN_FLIGHT [qp|srq|transport]
 *
 * With "transport", each end makes per connection the verbs objects the transport makes
 * (docs/benchmark.md): a shared receive queue of its own for 64 receives, with 4 slots of 8 KiB
 * registered and posted, and a queue pair of 128 sends of 2 gather entries and 128 bytes inline on it.
 * What a connect costs the kernel and the device then, against the plain floor, is the part of the
 * transport's set-up that no Java code can save. The shapes between name which object costs: "qp"
 * makes only the queue pair's size (128 sends of 2 gather entries and 128 bytes inline, and 64
 * receives of its own), "srq" adds the receive queue of its own with nothing registered or posted.
 *
 * Prints one line, then tears everything down (not timed):
 *   connect-floor connects=N in_flight=K seconds=S connects_per_s=X setup_p50_ms=A setup_p99_ms=B
 * where a connect's set-up runs from rdma_create_id to its ESTABLISHED event. Exit status 0 when every
 * connect was established, 1 otherwise (the reason on stderr), 2 for bad arguments.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/rdma_cma.h>

#define RESOLVE_TIMEOUT_MS 5000

/* One end's verbs objects: a protection domain and a completion queue that all its queue pairs share. */
struct end {
    struct ibv_pd *pd;
    struct ibv_cq *cq;
};

/* What a connection holds beside its queue pair in the transport's shape: its receive queue and slots. */
struct receives {
    struct ibv_srq *srq;
    struct ibv_mr *mr;
    void *slots;
};

#define TRANSPORT_RECEIVES 64
#define TRANSPORT_SLOTS 4
#define TRANSPORT_SLOT_SIZE 8192

/* What each connection makes beside the plain queue pair, each shape adding to the one before. */
enum shape { PLAIN, QP, SRQ, TRANSPORT };

/* Set by the fourth argument. */
static enum shape shape = PLAIN;

struct listener {
    struct rdma_event_channel *channel;
    struct rdma_cm_id *id;
    struct end end;
    atomic_int stop;
    int failed;
};

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int die(const char *what) {
    fprintf(stderr, "cm-connect-floor: %s: %s\n", what, strerror(errno));
    return -1;
}

/* Makes the end's domain and queue on the first connection's device; all connections share the device. */
static int open_end(struct end *end, struct ibv_context *verbs) {
    if (end->pd != NULL) {
        return 0;
    }
    end->pd = ibv_alloc_pd(verbs);
    if (end->pd == NULL) {
        return die("ibv_alloc_pd");
    }
    end->cq = ibv_create_cq(verbs, 16, NULL, NULL, 0);
    if (end->cq == NULL) {
        return die("ibv_create_cq");
    }
    return 0;
}

static void close_end(struct end *end) {
    if (end->cq != NULL) {
        ibv_destroy_cq(end->cq);
    }
    if (end->pd != NULL) {
        ibv_dealloc_pd(end->pd);
    }
}

/*
 * Makes the receive queue of a connection in the transport's shape and, in the whole shape, its slots
 * registered and posted.
 */
static int open_receives(struct end *end, struct receives *r) {
    struct ibv_srq_init_attr srq_attr;
    memset(&srq_attr, 0, sizeof(srq_attr));
    srq_attr.attr.max_wr = TRANSPORT_RECEIVES;
    srq_attr.attr.max_sge = 1;
    r->srq = ibv_create_srq(end->pd, &srq_attr);
    if (r->srq == NULL) {
        return die("ibv_create_srq");
    }
    if (shape < TRANSPORT) {
        return 0;
    }
    r->slots = aligned_alloc(4096, TRANSPORT_SLOTS * TRANSPORT_SLOT_SIZE);
    r->mr = r->slots == NULL ? NULL
            : ibv_reg_mr(end->pd, r->slots, TRANSPORT_SLOTS * TRANSPORT_SLOT_SIZE, IBV_ACCESS_LOCAL_WRITE);
    if (r->mr == NULL) {
        return die("ibv_reg_mr");
    }
    for (int i = 0; i < TRANSPORT_SLOTS; i++) {
        struct ibv_sge sge = {
            .addr = (uintptr_t) r->slots + (uintptr_t) i * TRANSPORT_SLOT_SIZE,
            .length = TRANSPORT_SLOT_SIZE,
            .lkey = r->mr->lkey,
        };
        struct ibv_recv_wr wr = {.wr_id = (uint64_t) i, .sg_list = &sge, .num_sge = 1}, *bad;
        if (ibv_post_srq_recv(r->srq, &wr, &bad) != 0) {
            return die("ibv_post_srq_recv");
        }
    }
    return 0;
}

/* Frees what open_receives made, after the queue pair on it is destroyed. */
static void close_receives(struct receives *r) {
    if (r->mr != NULL) {
        ibv_dereg_mr(r->mr);
    }
    if (r->srq != NULL) {
        ibv_destroy_srq(r->srq);
    }
    free(r->slots);
    memset(r, 0, sizeof(*r));
}

/*
 * An RC queue pair on the end's domain and queue: of one send and one receive, or, in the transport's
 * shapes, of 128 sends, on a receive queue of its own that r holds from "srq" on.
 */
static int create_qp(struct end *end, struct rdma_cm_id *id, struct receives *r) {
    struct ibv_qp_init_attr attr;
    if (open_end(end, id->verbs) != 0) {
        return -1;
    }
    memset(&attr, 0, sizeof(attr));
    attr.qp_type = IBV_QPT_RC;
    attr.send_cq = end->cq;
    attr.recv_cq = end->cq;
    attr.cap.max_send_wr = 1;
    attr.cap.max_recv_wr = 1;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    if (shape >= QP) {
        attr.cap.max_send_wr = 128;
        attr.cap.max_send_sge = 2;
        attr.cap.max_inline_data = 128;
        attr.cap.max_recv_wr = TRANSPORT_RECEIVES;
    }
    if (shape >= SRQ) {
        if (open_receives(end, r) != 0) {
            return -1;
        }
        attr.srq = r->srq;
        attr.cap.max_recv_wr = 0;
        attr.cap.max_recv_sge = 0;
    }
    return rdma_create_qp(id, end->pd, &attr) == 0 ? 0 : die("rdma_create_qp");
}

static struct rdma_conn_param conn_param(void) {
    struct rdma_conn_param param;
    memset(&param, 0, sizeof(param));
    param.responder_resources = 1;
    param.initiator_depth = 1;
    param.retry_count = 7;
    param.rnr_retry_count = 7;
    return param;
}

/* The listener's thread: accepts every request with a queue pair, and frees a connection its peer left. */
static void *listen_loop(void *arg) {
    struct listener *l = arg;
    struct pollfd pfd = {.fd = l->channel->fd, .events = POLLIN};
    while (!atomic_load(&l->stop)) {
        struct rdma_cm_event *event;
        if (poll(&pfd, 1, 100) <= 0) {
            continue;
        }
        if (rdma_get_cm_event(l->channel, &event) != 0) {
            if (errno == EAGAIN) {
                continue;
            }
            die("the listener's rdma_get_cm_event");
            l->failed = 1;
            break;
        }
        struct rdma_cm_id *id = event->id;
        enum rdma_cm_event_type type = event->event;
        rdma_ack_cm_event(event);
        if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
            struct rdma_conn_param param = conn_param();
            /* The accepted id's context is its own: it keeps the connection's receives. */
            struct receives *r = calloc(1, sizeof(*r));
            id->context = r;
            if (r == NULL || create_qp(&l->end, id, r) != 0 || rdma_accept(id, &param) != 0) {
                die("accepting a connect request");
                rdma_reject(id, NULL, 0);
                l->failed = 1;
            }
        } else if (type == RDMA_CM_EVENT_DISCONNECTED) {
            rdma_destroy_qp(id);
            if (id->context != NULL) {
                close_receives(id->context);
                free(id->context);
            }
            rdma_destroy_id(id);
        }
    }
    return NULL;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double percentile(const double *sorted, int n, double p) {
    int index = (int) (p * n + 0.999999) - 1;
    return sorted[index < 0 ? 0 : index >= n ? n - 1 : index];
}

/* Starts connect number i: its id, then the address's resolution; the events do the rest. */
static int start(struct rdma_event_channel *channel, struct rdma_cm_id **ids, double *started, int i,
                 struct sockaddr *server) {
    if (rdma_create_id(channel, &ids[i], (void *) (intptr_t) i, RDMA_PS_TCP) != 0) {
        return die("rdma_create_id");
    }
    started[i] = now_ns();
    return rdma_resolve_addr(ids[i], NULL, server, RESOLVE_TIMEOUT_MS) == 0 ? 0 : die("rdma_resolve_addr");
}

int main(int argc, char **argv) {
    static const char *const shapes[] = {"plain", "qp", "srq", "transport"};
    int named = argc == 4;
    for (int i = QP; argc == 5 && i <= TRANSPORT; i++) {
        if (strcmp(argv[4], shapes[i]) == 0) {
            shape = (enum shape) i;
            named = 1;
        }
    }
    if (!named) {
        fprintf(stderr, "usage: cm-connect-floor ADDRESS COUNT IN_FLIGHT [qp|srq|transport]\n");
        return 2;
    }
    int count = atoi(argv[2]), in_flight = atoi(argv[3]);
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST}, *address;
    if (count < 1 || in_flight < 1 || getaddrinfo(argv[1], NULL, &hints, &address) != 0) {
        fprintf(stderr, "cm-connect-floor: ADDRESS must be numeric, COUNT and IN_FLIGHT at least 1\n");
        return 2;
    }
    struct listener l;
    memset(&l, 0, sizeof(l));
    struct sockaddr_storage server;
    memcpy(&server, address->ai_addr, address->ai_addrlen);
    freeaddrinfo(address);
    l.channel = rdma_create_event_channel();
    if (l.channel == NULL || rdma_create_id(l.channel, &l.id, NULL, RDMA_PS_TCP) != 0
            || rdma_bind_addr(l.id, (struct sockaddr *) &server) != 0 || rdma_listen(l.id, 1024) != 0) {
        die("listening");
        return 1;
    }
    /* The port the listener got, for the connects. */
    if (server.ss_family == AF_INET6) {
        ((struct sockaddr_in6 *) &server)->sin6_port = rdma_get_src_port(l.id);
    } else {
        ((struct sockaddr_in *) &server)->sin_port = rdma_get_src_port(l.id);
    }
    fcntl(l.channel->fd, F_SETFL, fcntl(l.channel->fd, F_GETFL) | O_NONBLOCK);
    pthread_t thread;
    pthread_create(&thread, NULL, listen_loop, &l);

    struct rdma_event_channel *channel = rdma_create_event_channel();
    struct rdma_cm_id **ids = calloc(count, sizeof(*ids));
    double *started = calloc(count, sizeof(double)), *setup = calloc(count, sizeof(double));
    struct receives *receives = calloc(count, sizeof(*receives));
    struct end end = {0};
    int next = 0, established = 0, status = 0;
    double first = now_ns();
    while (next < in_flight && next < count) {
        if (start(channel, ids, started, next++, (struct sockaddr *) &server) != 0) {
            return 1;
        }
    }
    while (established < count && status == 0) {
        struct rdma_cm_event *event;
        if (rdma_get_cm_event(channel, &event) != 0) {
            status = die("rdma_get_cm_event");
            break;
        }
        struct rdma_cm_id *id = event->id;
        enum rdma_cm_event_type type = event->event;
        int event_status = event->status;
        int i = (int) (intptr_t) id->context;
        rdma_ack_cm_event(event);
        switch (type) {
        case RDMA_CM_EVENT_ADDR_RESOLVED:
            status = rdma_resolve_route(id, RESOLVE_TIMEOUT_MS) == 0 ? 0 : die("rdma_resolve_route");
            break;
        case RDMA_CM_EVENT_ROUTE_RESOLVED: {
            struct rdma_conn_param param = conn_param();
            status = create_qp(&end, id, &receives[i]) == 0 && rdma_connect(id, &param) == 0
                    ? 0 : die("rdma_connect");
            break;
        }
        case RDMA_CM_EVENT_ESTABLISHED:
            setup[established++] = now_ns() - started[i];
            if (next < count) {
                status = start(channel, ids, started, next++, (struct sockaddr *) &server);
            }
            break;
        default:
            fprintf(stderr, "cm-connect-floor: connect %d: %s (status %d)\n", i, rdma_event_str(type),
                    event_status);
            status = -1;
            break;
        }
    }
    double seconds = (now_ns() - first) / 1e9;
    if (status == 0) {
        qsort(setup, count, sizeof(double), compare);
        printf("connect-floor connects=%d in_flight=%d seconds=%.3f connects_per_s=%.1f setup_p50_ms=%.3f"
               " setup_p99_ms=%.3f\n", count, in_flight, seconds, count / seconds,
               percentile(setup, count, 0.50) / 1e6, percentile(setup, count, 0.99) / 1e6);
        fflush(stdout);
    }

    /* Teardown, not timed: disconnect every connection and wait until each saw it, then free. */
    int open = 0;
    for (int i = 0; i < next; i++) {
        if (ids[i] != NULL && ids[i]->qp != NULL && rdma_disconnect(ids[i]) == 0) {
            open++;
        }
    }
    struct pollfd pfd = {.fd = channel->fd, .events = POLLIN};
    fcntl(channel->fd, F_SETFL, fcntl(channel->fd, F_GETFL) | O_NONBLOCK);
    while (open > 0 && poll(&pfd, 1, 10000) > 0) {
        struct rdma_cm_event *event;
        while (rdma_get_cm_event(channel, &event) == 0) {
            open -= event->event == RDMA_CM_EVENT_DISCONNECTED;
            rdma_ack_cm_event(event);
        }
    }
    for (int i = 0; i < next; i++) {
        if (ids[i] != NULL) {
            if (ids[i]->qp != NULL) {
                rdma_destroy_qp(ids[i]);
            }
            close_receives(&receives[i]);
            rdma_destroy_id(ids[i]);
        }
    }
    atomic_store(&l.stop, 1);
    pthread_join(thread, NULL);
    rdma_destroy_id(l.id);
    close_end(&end);
    close_end(&l.end);
    rdma_destroy_event_channel(channel);
    rdma_destroy_event_channel(l.channel);
    free(ids);
    free(receives);
    free(started);
    free(setup);
    return status == 0 && !l.failed ? 0 : 1;
}
