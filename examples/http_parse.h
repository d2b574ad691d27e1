/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The request parser and response header of examples/httpd.c, apart from
 * its sockets, so that tests/fuzz/http_fuzz.c drives them with the bytes a
 * client could send.  Plain C, no library call of libexec.
 *
 * A request is a head only (a body is refused): a request line
 * "METHOD SP /TARGET SP HTTP/1.x" with METHOD in capitals, header lines
 * each with a name and a colon, and an empty line.  GET / and
 * GET /files/NAME are served; anything else is an error.
 */
#ifndef EXEC_EXAMPLES_HTTP_PARSE_H
#define EXEC_EXAMPLES_HTTP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

/* What http_parse() found at the head of the buffer. */
enum http_verdict {
	HTTP_INCOMPLETE,	/* no complete head yet: read more */
	HTTP_ROOT,		/* GET / */
	HTTP_FILE,		/* GET /files/NAME */
	HTTP_NOT_FOUND,		/* GET of anything else: 404 */
	HTTP_BAD,		/* malformed: 400, then close */
	HTTP_NOT_ALLOWED,	/* a method other than GET: 405, then close */
	HTTP_TOO_LARGE,		/* no head within the limit: 431, then close */
};

/**
 * struct http_req - a request parsed by http_parse()
 * @consumed: the bytes at the head of the buffer that the response
 *	answers: the request's head, or all of them when the connection
 *	closes after the response
 * @keep_alive: the connection stays open after the response
 * @name: HTTP_FILE: the NAME of /files/NAME, NUL-terminated in the buffer
 */
struct http_req {
	size_t consumed;
	bool keep_alive;
	const char *name;
};

/* Whether @len bytes at @name are @want, regardless of case. */
static inline bool http_header_is(const char *name, size_t len,
				  const char *want)
{
	return len == strlen(want) && !strncasecmp(name, want, len);
}

/* An error: nothing after it is read, so it answers every byte. */
static inline enum http_verdict http_fail(struct http_req *req, size_t len,
					  enum http_verdict v)
{
	req->consumed = len;
	req->keep_alive = false;
	return v;
}

/*
 * The request line, NUL-terminated at @buf: its method (capitals), target
 * (starting with '/', no control character: a bare CR in it would reach
 * the file name) and version (HTTP/1.1 or HTTP/1.0).  Returns the
 * separators through @sp1 and @sp2, or false.
 */
static inline bool http_request_line(char *buf, char **sp1, char **sp2)
{
	char *p;

	*sp1 = strchr(buf, ' ');
	*sp2 = *sp1 ? strchr(*sp1 + 1, ' ') : NULL;
	if (!*sp1 || !*sp2 || *sp1 == buf || *sp2 == *sp1 + 1 ||
	    (*sp1)[1] != '/' || strchr(*sp2 + 1, ' ') ||
	    (strcmp(*sp2 + 1, "HTTP/1.1") && strcmp(*sp2 + 1, "HTTP/1.0")))
		return false;
	for (p = buf; p < *sp1; p++)
		if (*p < 'A' || *p > 'Z')
			return false;
	for (p = *sp1 + 1; p < *sp2; p++)
		if ((unsigned char)*p < 0x21 || *p == 0x7f)
			return false;
	return true;
}

/*
 * The header lines from @p to @end: every one has a name and a colon; the
 * value of the first Connection header goes to @v and @vlen, and whether
 * a body is announced to @has_body.  Returns false if one is malformed.
 */
static inline bool http_headers(char *p, char *end, const char **v,
				size_t *vlen, bool *has_body)
{
	char *eol, *colon;
	size_t name_len;

	for (; p < end; p = eol + 2) {
		eol = strstr(p, "\r\n");
		colon = memchr(p, ':', (size_t)(eol - p));
		if (!colon || colon == p || *p == ' ')
			return false;
		name_len = (size_t)(colon - p);
		if (!*v && http_header_is(p, name_len, "Connection")) {
			*v = colon + 1;
			while (**v == ' ' || **v == '\t')
				(*v)++;
			*vlen = (size_t)(eol - *v);
		} else if (http_header_is(p, name_len, "Content-Length") ||
			   http_header_is(p, name_len, "Transfer-Encoding")) {
			*has_body = true;
		}
	}
	return true;
}

/**
 * http_parse - parse the request at the head of a connection's buffer
 * @buf: the bytes received, with room for one more (a NUL is written
 *	after them); the request is modified in place
 * @len: their count
 * @max_header: the largest head accepted
 * @req: the request, for every verdict but HTTP_INCOMPLETE
 *
 * Return: the verdict.
 */
static inline enum http_verdict http_parse(char *buf, size_t len,
					   size_t max_header,
					   struct http_req *req)
{
	char *end, *line_end, *sp1, *sp2;
	const char *v = NULL;
	bool http10, has_body = false;
	size_t vlen = 0;

	buf[len] = '\0';
	end = strstr(buf, "\r\n\r\n");
	if (!end) {
		if (len >= max_header)
			return http_fail(req, len, HTTP_TOO_LARGE);
		if (memchr(buf, '\0', len))
			return http_fail(req, len, HTTP_BAD);
		return HTTP_INCOMPLETE;
	}
	req->consumed = (size_t)(end - buf) + 4;
	req->keep_alive = true;
	req->name = NULL;
	line_end = strstr(buf, "\r\n");
	*line_end = '\0';
	if (!http_request_line(buf, &sp1, &sp2))
		return http_fail(req, len, HTTP_BAD);
	http10 = !strcmp(sp2 + 1, "HTTP/1.0");
	*line_end = '\r';
	if (!http_headers(line_end + 2, end, &v, &vlen, &has_body))
		return http_fail(req, len, HTTP_BAD);
	if (http10)
		req->keep_alive = v && http_header_is(v, vlen, "keep-alive");
	else if (v && http_header_is(v, vlen, "close"))
		req->keep_alive = false;
	/* A request body is not expected: refuse one rather than misparse. */
	if (has_body)
		return http_fail(req, len, HTTP_BAD);
	*sp2 = '\0';
	if (strncmp(buf, "GET ", 4))
		return http_fail(req, len, HTTP_NOT_ALLOWED);
	if (!strcmp(sp1 + 1, "/"))
		return HTTP_ROOT;
	if (!strncmp(sp1 + 1, "/files/", 7)) {
		req->name = sp1 + 8;
		return HTTP_FILE;
	}
	return HTTP_NOT_FOUND;
}

/* Appends @len bytes of @s at *@p; returns the end. */
static inline char *http_put(char *p, const char *s, size_t len)
{
	memcpy(p, s, len);
	return p + len;
}

#define HTTP_PUT_STR(p, lit)	http_put(p, lit, sizeof(lit) - 1)

/* Appends @v in decimal at @p; returns the end. */
static inline char *http_put_decimal(char *p, size_t v)
{
	char digits[20];
	size_t n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = digits[--n];
	return p;
}

/* The longest header http_response_head() writes, with a reason under 64. */
#define HTTP_HEAD_MAX	192

/**
 * http_response_head - write a response's header
 * @head: at least HTTP_HEAD_MAX bytes
 * @status: the status code
 * @reason: its reason phrase, under 64 characters
 * @len: the body's length
 * @keep_alive: false: "Connection: close"
 *
 * The header is assembled piece by piece rather than with snprintf(): on a
 * keep-alive connection it is written for every request, and the format
 * parser showed in profiles of the benchmark's load.
 *
 * Return: the header's length.
 */
static inline size_t http_response_head(char *head, int status,
					const char *reason, size_t len,
					bool keep_alive)
{
	char *p = head;

	p = HTTP_PUT_STR(p, "HTTP/1.1 ");
	p = http_put_decimal(p, (size_t)status);
	*p++ = ' ';
	p = http_put(p, reason, strlen(reason));
	p = HTTP_PUT_STR(p, "\r\nServer: exec-httpd\r\nContent-Length: ");
	p = http_put_decimal(p, len);
	p = HTTP_PUT_STR(p, "\r\nContent-Type: text/plain\r\n");
	if (!keep_alive)
		p = HTTP_PUT_STR(p, "Connection: close\r\n");
	p = HTTP_PUT_STR(p, "\r\n");
	return (size_t)(p - head);
}

#endif /* EXEC_EXAMPLES_HTTP_PARSE_H */
