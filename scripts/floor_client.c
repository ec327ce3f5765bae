/*
 * floor_client: the least a client can do to send make bench-client's GETs
 * or SETs (issue #26). It is not a benchmark: it times nothing and keeps no
 * histogram. Its CPU per request is a floor on this machine for any client
 * that sends the same requests the same way:
 *
 * - RATE 0, a closed loop: one request outstanding per connection, the
 *   next written as soon as its reply is read; the connections waited on
 *   in one epoll set (a write and a read a request, one epoll_wait for the
 *   replies that came together), as tairbench's groups do.
 * - RATE > 0, on a send grid of GRID_US: one wake per tick (a timerfd,
 *   armed at the tick's absolute time), then for each request due by the
 *   tick its connection's last reply read (non-blocking) and the request
 *   written, as tairbench's --send-grid does.
 *
 * usage: floor_client PORT CONNS RATE GRID_US REQUESTS KEYS [get|set]
 * keys are key:0 ... key:KEYS-1; a SET's value is 64 bytes.
 * prints the requests sent and the process's CPU seconds.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

struct conn {
	int fd, owed; /* owed: replies not read yet */
	long want;    /* bytes of the bulk reply being read still to come, -1: at a header */
	char hdr[32];
	int hlen;
};

static long keys;
static int set;

static long long now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* settle reads what has come on c and counts the replies it ends. */
static int settle(struct conn *c) {
	char buf[4096];
	while (c->owed > 0) {
		ssize_t n = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -1;
		for (ssize_t i = 0; i < n;) {
			if (c->want > 0) { /* inside a bulk body and its CRLF */
				long take = c->want < n - i ? c->want : n - i;
				c->want -= take, i += take;
				if (c->want == 0)
					c->owed--, c->want = -1;
				continue;
			}
			char ch = buf[i++];
			if (c->hlen < (int)sizeof c->hdr - 1)
				c->hdr[c->hlen++] = ch;
			if (ch != '\n')
				continue;
			c->hdr[c->hlen] = 0, c->hlen = 0;
			long len = c->hdr[0] == '$' ? atol(c->hdr + 1) : -1;
			if (len >= 0)
				c->want = len + 2;
			else
				c->owed--; /* a null, or a one-line reply */
		}
	}
	return 0;
}

/* send writes c's next request (a GET or SET of a random key). */
static int send_one(struct conn *c) {
	static const char value[] = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
	char key[24], req[160];
	int kl = snprintf(key, sizeof key, "key:%ld", random() % keys), n;
	if (set)
		n = snprintf(req, sizeof req, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$64\r\n%s\r\n", kl, key, value);
	else
		n = snprintf(req, sizeof req, "*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n", kl, key);
	if (write(c->fd, req, n) != n) {
		perror("floor_client: write");
		return -1;
	}
	c->owed = 1;
	return 0;
}

/* closed sends total requests, each as soon as its connection's last reply is read. */
static int closed(struct conn *cs, int conns, long total) {
	int ep = epoll_create1(0), busy = 0;
	long sent = 0;
	for (int i = 0; i < conns; i++) {
		struct epoll_event ev = {.events = EPOLLIN, .data.u32 = i};
		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, cs[i].fd, &ev) != 0) {
			perror("floor_client: epoll");
			return -1;
		}
		if (sent < total) {
			if (send_one(&cs[i]) != 0)
				return -1;
			sent++, busy++;
		}
	}
	struct epoll_event evs[64];
	while (busy > 0) {
		int ne = epoll_wait(ep, evs, 64, -1);
		for (int e = 0; e < ne; e++) {
			struct conn *c = &cs[evs[e].data.u32];
			if (settle(c) != 0)
				return -1;
			if (c->owed > 0)
				continue;
			if (sent < total) {
				if (send_one(c) != 0)
					return -1;
				sent++;
			} else {
				busy--;
			}
		}
	}
	printf("sent %ld ", sent);
	return 0;
}

/* grid sends total requests at rate, each at the first tick at or after its due time. */
static int grid(struct conn *cs, int conns, long total, double rate, long long tick_ns) {
	int tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	long long begin = now_ns(), tick = begin;
	long sent = 0;
	while (sent < total) {
		tick += tick_ns;
		struct itimerspec at = {.it_value = {tick / 1000000000LL, tick % 1000000000LL}};
		uint64_t x;
		if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &at, NULL) != 0 || read(tfd, &x, sizeof x) != sizeof x) {
			perror("floor_client: timer");
			return -1;
		}
		/* Request k is due at begin + k/rate, on connection k % conns. */
		while (sent < total && begin + (long long)(sent * 1e9 / rate) <= tick) {
			struct conn *c = &cs[sent % conns];
			if (settle(c) != 0)
				return -1;
			if (c->owed > 0) /* its reply has not come: the rest wait a tick */
				break;
			if (send_one(c) != 0)
				return -1;
			sent++;
		}
	}
	for (int i = 0; i < conns; i++)
		while (cs[i].owed > 0)
			if (settle(&cs[i]) != 0)
				return -1;
	printf("sent %ld ", sent);
	return 0;
}

int main(int argc, char **argv) {
	if (argc != 7 && argc != 8) {
		fprintf(stderr, "usage: floor_client PORT CONNS RATE GRID_US REQUESTS KEYS [get|set]\n");
		return 2;
	}
	int port = atoi(argv[1]), conns = atoi(argv[2]);
	double rate = atof(argv[3]);
	long long tick_ns = atoll(argv[4]) * 1000LL;
	long total = atol(argv[5]);
	keys = atol(argv[6]);
	set = argc == 8 && strcmp(argv[7], "set") == 0;
	if (conns < 1 || rate < 0 || (rate > 0 && tick_ns <= 0) || total < 1 || keys < 1 ||
	    (argc == 8 && !set && strcmp(argv[7], "get") != 0)) {
		fprintf(stderr, "floor_client: CONNS, REQUESTS and KEYS must be positive, RATE 0 (closed) or above "
				"with a positive GRID_US, and the command get or set\n");
		return 2;
	}
	struct conn *cs = calloc(conns, sizeof *cs);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	for (int i = 0; i < conns; i++) {
		int one = 1;
		cs[i].fd = socket(AF_INET, SOCK_STREAM, 0);
		cs[i].want = -1;
		if (connect(cs[i].fd, (struct sockaddr *)&a, sizeof a) != 0) {
			perror("floor_client: connect");
			return 1;
		}
		setsockopt(cs[i].fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	}
	srandom(1);
	if ((rate > 0 ? grid(cs, conns, total, rate, tick_ns) : closed(cs, conns, total)) != 0) {
		fprintf(stderr, "floor_client: connection lost\n");
		return 1;
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("cpu %.6f s\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return 0;
}
