// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: the request parser and response header of
 * examples/httpd.c (examples/http_parse.h), driven through a copy of the
 * server's connection state machine without sockets.
 *
 * The input picks the header limit, then is a stream of pieces, each a
 * length byte and that many bytes, as the multishot receive delivers them.
 * As in httpd: a piece is held, as much of the held bytes as fits the
 * limit moves into the connection's buffer (conn_fill()), a request is
 * parsed when no response is in progress (conn_process()), and after a
 * response its bytes leave the buffer and the next request is parsed, or
 * the connection closes (conn_response_done()); at the end of the stream
 * the requests received are still answered.
 *
 * Checked: the buffer never holds more than the limit; a response answers
 * no more bytes than there are; its header is well formed (status line,
 * Content-Length of the body, "Connection: close" exactly when the
 * connection closes, under HTTP_HEAD_MAX); and the verdict agrees with a
 * plain reading of the request: a served GET has that request line and
 * answers exactly its head, a body announced by Content-Length or
 * Transfer-Encoding is refused, an error closes, an HTTP/1.0 connection is
 * kept only with "Connection: keep-alive", nothing is answered before the
 * head is complete, and 431 only past the limit.  ASan sees every byte
 * read outside the buffer.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http_parse.h"
#include "fuzz.h"

#define HF_BODY_LEN	14	/* httpd's "Hello, world!\n" */

struct hf_conn {
	char *buf;		/* max_header + 1 bytes, as httpd's */
	size_t len;
	size_t max_header;
	const uint8_t *held;	/* received, not yet in @buf */
	size_t nr_held;
	bool eof;
	bool closed;
	unsigned int responses;
};

/* conn_fill(): as much of the held bytes as fits. */
static void hf_fill(struct hf_conn *c)
{
	size_t n = c->max_header - c->len;

	if (n > c->nr_held)
		n = c->nr_held;
	memcpy(c->buf + c->len, c->held, n);
	c->len += n;
	c->held += n;
	c->nr_held -= n;
}

/* The status and reason httpd answers a verdict with; GET /files is 404. */
static int hf_status(enum http_verdict v, const char **reason)
{
	static const struct {
		int status;
		const char *reason;
	} map[] = {
		[HTTP_ROOT] = { 200, "OK" },
		[HTTP_FILE] = { 404, "Not Found" },
		[HTTP_NOT_FOUND] = { 404, "Not Found" },
		[HTTP_BAD] = { 400, "Bad Request" },
		[HTTP_NOT_ALLOWED] = { 405, "Method Not Allowed" },
		[HTTP_TOO_LARGE] = { 431, "Request Header Fields Too Large" },
	};

	*reason = map[v].reason;
	return map[v].status;
}

static void hf_check_head(const char *head, size_t n, int status,
			  size_t body_len, bool keep_alive)
{
	char want[64];
	int w;

	fuzz_check(n <= HTTP_HEAD_MAX, "header of %zu bytes", n);
	w = snprintf(want, sizeof(want), "HTTP/1.1 %d ", status);
	fuzz_check(!strncmp(head, want, (size_t)w), "status line %.20s", head);
	fuzz_check(n >= 4 && !memcmp(head + n - 4, "\r\n\r\n", 4),
		   "header not ended");
	fuzz_check(memmem(head, n, "\r\n\r\n", 4) == head + n - 4,
		   "an empty line inside the header");
	w = snprintf(want, sizeof(want), "\r\nContent-Length: %zu\r\n",
		     body_len);
	fuzz_check(memmem(head, n, want, (size_t)w), "no %s", want + 2);
	fuzz_check(!keep_alive ==
		   !!memmem(head, n, "\r\nConnection: close\r\n", 21),
		   "Connection: close and keep-alive %d", keep_alive);
}

/* Whether the header lines of @head (a copy, NUL-free) name @name. */
static bool hf_has_header(const char *head, size_t len, const char *name,
			  const char *value)
{
	const char *p = memmem(head, len, "\r\n", 2), *end = head + len, *eol;
	size_t n = strlen(name);

	for (; p && p + 2 < end; p = eol) {
		p += 2;
		eol = memmem(p, (size_t)(end - p), "\r\n", 2);
		if (!eol || eol == p)
			break;
		if ((size_t)(eol - p) <= n || strncasecmp(p, name, n) ||
		    p[n] != ':')
			continue;
		if (!value)
			return true;
		p += n + 1;
		while (*p == ' ' || *p == '\t')
			p++;
		if ((size_t)(eol - p) == strlen(value) &&
		    !strncasecmp(p, value, (size_t)(eol - p)))
			return true;
	}
	return false;
}

/* The verdict against a plain reading of @raw, the buffer before parsing. */
static void hf_check_verdict(const struct hf_conn *c, const char *raw,
			     enum http_verdict v, const struct http_req *req)
{
	const char *end = memmem(raw, c->len, "\r\n\r\n", 4);
	const char *nul = memchr(raw, '\0', c->len);
	size_t head = end ? (size_t)(end - raw) + 4 : 0;
	const char *line;
	bool served = v == HTTP_ROOT || v == HTTP_FILE || v == HTTP_NOT_FOUND;

	if (v == HTTP_INCOMPLETE) {
		fuzz_check(!end && !nul && c->len < c->max_header,
			   "incomplete, %zu bytes", c->len);
		return;
	}
	fuzz_check(req->consumed <= c->len, "answers %zu of %zu bytes",
		   req->consumed, c->len);
	if (v == HTTP_TOO_LARGE)
		fuzz_check(c->len >= c->max_header && (!end || (nul && nul < end)),
			   "431 with %zu bytes", c->len);
	if (!served) {
		fuzz_check(!req->keep_alive && req->consumed == c->len,
			   "an error keeps the connection");
		return;
	}
	fuzz_check(end && (!nul || nul > end) && req->consumed == head,
		   "served without a head, or answers %zu of %zu",
		   req->consumed, head);
	fuzz_check(!hf_has_header(raw, head - 2, "Content-Length", NULL) &&
		   !hf_has_header(raw, head - 2, "Transfer-Encoding", NULL),
		   "a request with a body served");
	if (v == HTTP_ROOT)
		fuzz_check(!strncmp(raw, "GET / HTTP/1.1\r\n", 16) ||
			   !strncmp(raw, "GET / HTTP/1.0\r\n", 16),
			   "GET / from %.16s", raw);
	else if (v == HTTP_FILE)
		fuzz_check(!strncmp(raw, "GET /files/", 11) && req->name &&
			   !strchr(req->name, '\r') && !strchr(req->name, ' '),
			   "a file from %.16s", raw);
	else
		fuzz_check(!strncmp(raw, "GET /", 5), "404 for %.16s", raw);
	line = memmem(raw, head, "\r\n", 2);
	if (req->keep_alive && line - raw >= 9 &&
	    !memcmp(line - 9, " HTTP/1.0", 9))
		fuzz_check(hf_has_header(raw, head - 2, "Connection",
					 "keep-alive"),
			   "HTTP/1.0 kept open");
	if (hf_has_header(raw, head - 2, "Connection", "close") &&
	    !hf_has_header(raw, head - 2, "Connection", NULL))
		fuzz_check(!req->keep_alive, "Connection: close kept open");
}

/* conn_process() and the response, until more bytes are needed. */
static void hf_process(struct hf_conn *c)
{
	char raw[2048 + 1], head[HTTP_HEAD_MAX];
	struct http_req req = { 0 };
	enum http_verdict v;
	const char *reason;
	size_t n, body;
	int status;

	while (!c->closed) {
		memcpy(raw, c->buf, c->len);
		raw[c->len] = '\0';
		v = http_parse(c->buf, c->len, c->max_header, &req);
		hf_check_verdict(c, raw, v, &req);
		if (v == HTTP_INCOMPLETE) {
			/* conn_read(): at the end of the stream, closed. */
			if (c->eof)
				c->closed = true;
			return;
		}
		status = hf_status(v, &reason);
		body = v == HTTP_ROOT ? HF_BODY_LEN : 0;
		n = http_response_head(head, status, reason, body,
				       req.keep_alive);
		hf_check_head(head, n, status, body, req.keep_alive);
		c->responses++;
		/* conn_response_done() */
		memmove(c->buf, c->buf + req.consumed, c->len - req.consumed);
		c->len -= req.consumed;
		hf_fill(c);
		fuzz_check(c->len <= c->max_header, "buffer of %zu", c->len);
		if (!req.keep_alive)
			c->closed = true;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct hf_conn c = { 0 };
	size_t n;

	/* Limits from 8 bytes (all heads too large) to httpd's 2048. */
	c.max_header = 8 + (fuzz_u8(&in) * 8U) % 2041;
	c.buf = malloc(c.max_header + 1);
	if (!c.buf)
		return 0;
	while (in.n && !c.closed) {
		n = fuzz_u8(&in);
		if (n > in.n)
			n = in.n;
		/* conn_on_piece(): held, moved in as room allows. */
		c.held = in.p;
		c.nr_held = n;
		in.p += n;
		in.n -= n;
		hf_fill(&c);
		hf_process(&c);
		/* What did not fit waits for the responses (already sent). */
		while (c.nr_held && !c.closed) {
			fuzz_check(c.len == c.max_header, "held with room");
			hf_process(&c);
		}
	}
	c.eof = true;
	hf_process(&c);
	free(c.buf);
	return 0;
}
