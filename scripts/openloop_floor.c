/*
 * openloop_floor: the least a client can do to send GETs on a send grid, for
 * make bench-client's open-loop table (issue #26). It is not a benchmark:
 * it times nothing and keeps no histogram. Its CPU per request is a floor
 * on this machine for any client that spaces its requests as tairbench's
 * --send-grid does: one wake per tick (a timerfd, armed at the tick's
 * absolute time), then for each request due by the tick the reply of its
 * connection's last request read (non-blocking) and the request written,
 * one outstanding request per connection, as tairbench's groups do.
 *
 * usage: openloop_floor PORT CONNS RATE GRID_US REQUESTS KEYS
 * prints: requests sent, late (held by a reply not read at their tick),
 * and the process's CPU seconds.
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
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

struct conn {
	int fd, owed; /* owed: replies not read yet */
	long want;     /* bytes of the reply being read still to come, -1: at a header */
	char hdr[32];
	int hlen;
};

static long long now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* settle reads what has come on c and counts the bulk replies it ends. */
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

int main(int argc, char **argv) {
	if (argc != 7) {
		fprintf(stderr, "usage: openloop_floor PORT CONNS RATE GRID_US REQUESTS KEYS\n");
		return 2;
	}
	int port = atoi(argv[1]), conns = atoi(argv[2]);
	double rate = atof(argv[3]);
	long long grid = atoll(argv[4]) * 1000LL;
	long total = atol(argv[5]), keys = atol(argv[6]);
	if (conns < 1 || rate <= 0 || grid <= 0 || total < 1 || keys < 1) {
		fprintf(stderr, "openloop_floor: every argument must be positive\n");
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
			perror("openloop_floor: connect");
			return 1;
		}
		setsockopt(cs[i].fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	}
	int tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	srandom(1);
	long long begin = now_ns(), tick = begin;
	long sent = 0, late = 0;
	char req[64];
	while (sent < total) {
		tick += grid;
		struct itimerspec at = {.it_value = {tick / 1000000000LL, tick % 1000000000LL}};
		uint64_t x;
		if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &at, NULL) != 0 || read(tfd, &x, sizeof x) != sizeof x) {
			perror("openloop_floor: timer");
			return 1;
		}
		/* Request k is due at begin + k/rate, on connection k % conns. */
		while (sent < total && begin + (long long)(sent * 1e9 / rate) <= tick) {
			struct conn *c = &cs[sent % conns];
			if (settle(c) != 0) {
				fprintf(stderr, "openloop_floor: connection lost\n");
				return 1;
			}
			if (c->owed > 0) { /* its reply has not come: the rest wait a tick */
				late++;
				break;
			}
			char key[24];
			int kl = snprintf(key, sizeof key, "key:%ld", random() % keys);
			int n = snprintf(req, sizeof req, "*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n", kl, key);
			if (write(c->fd, req, n) != n) {
				perror("openloop_floor: write");
				return 1;
			}
			c->owed = 1;
			sent++;
		}
	}
	for (int i = 0; i < conns; i++)
		while (cs[i].owed > 0)
			if (settle(&cs[i]) != 0)
				return 1;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	printf("sent %ld late %ld cpu %.6f s\n", sent, late, cpu);
	return 0;
}
