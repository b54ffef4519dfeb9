/* SPDX-License-Identifier: MIT */
/*
 * test-proto.c - unit tests of the wire protocol (common/proto.c, support/protomsg.c).
 *
 * Event descriptions: encode/decode round trips and every way a record can
 * be malformed. MSG_CMD arguments. proto_send/proto_recv over a
 * SOCK_SEQPACKET socketpair: round trips with descriptors, and rejection of
 * malformed messages, checking that the descriptors of a rejected message
 * are closed (the count of /proc/self/fd entries does not grow).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <shmtrace/shmtrace.h>
#include "common/proto.h"
#include "support/protomsg.h"

/* ---- raw record builder ---------------------------------------------------- */

struct rbuf {
	char b[8192];
	size_t len;
};

static void rb_put(struct rbuf *r, const void *p, size_t n)
{
	ck_assert_uint_le(r->len + n, sizeof(r->b));
	memcpy(r->b + r->len, p, n);
	r->len += n;
}

static void rb_u16(struct rbuf *r, uint16_t v)
{
	rb_put(r, &v, 2);
}

static void rb_u32(struct rbuf *r, uint32_t v)
{
	rb_put(r, &v, 4);
}

/* An event record header and name, as on the wire. */
static void rb_event(struct rbuf *r, uint32_t id, int32_t level, uint16_t nf,
		     const char *name, size_t lname)
{
	rb_u32(r, id);
	rb_u32(r, (uint32_t)level);
	rb_u16(r, nf);
	rb_u16(r, (uint16_t)lname);
	rb_put(r, name, lname);
}

static void rb_field(struct rbuf *r, uint32_t type, const char *name, size_t lname)
{
	rb_u32(r, type);
	rb_u16(r, (uint16_t)lname);
	rb_put(r, name, lname);
}

static int decode_all(const struct rbuf *r, struct proto_event *ev)
{
	size_t pos = 0;
	int ret = proto_event_decode(r->b, r->len, &pos, ev);

	if (ret == 1)
		ck_assert_uint_eq(pos, r->len);
	return ret;
}

/* ---- event descriptions ----------------------------------------------------- */

START_TEST(test_event_roundtrip)
{
	static const uint32_t types[] = {
		SHMTRACE_TYPE_U8, SHMTRACE_TYPE_U16, SHMTRACE_TYPE_U32, SHMTRACE_TYPE_U64,
		SHMTRACE_TYPE_S8, SHMTRACE_TYPE_S16, SHMTRACE_TYPE_S32, SHMTRACE_TYPE_S64,
		SHMTRACE_TYPE_HEX64, SHMTRACE_TYPE_DOUBLE, SHMTRACE_TYPE_STRING,
		SHMTRACE_TYPE_SEQ | SHMTRACE_TYPE_U8, SHMTRACE_TYPE_SEQ | SHMTRACE_TYPE_S64,
		SHMTRACE_TYPE_SEQ | SHMTRACE_TYPE_U32, SHMTRACE_TYPE_SEQ | SHMTRACE_TYPE_S16,
		SHMTRACE_TYPE_U64,
	};
	static const char *const names[] = {
		"a", "b2", "_c", "dd_", "Ee", "f_1", "g", "h",
		"ptr", "dbl", "str", "seq8", "seq64", "q", "r",
		"x123456789_123456789_123456789_" "123456789_123456789_123456789_12",
	};
	char buf[4096];
	struct proto_event ev;
	long n1, n2, n3;
	size_t pos = 0;

	ck_assert_uint_eq(strlen(names[15]), PROTO_FIELDNAME_MAX - 1);
	n1 = proto_event_encode(buf, sizeof(buf), 7, SHMTRACE_INFO, "myapp", "request_begin",
				16, types, names);
	ck_assert_int_gt(n1, 0);
	n2 = proto_event_encode(buf + n1, sizeof(buf) - (size_t)n1, 300, -3, "p", "e", 0, NULL, NULL);
	ck_assert_int_eq(n2, 12 + 3);
	n3 = proto_event_encode(buf + n1 + n2, sizeof(buf) - (size_t)(n1 + n2), 0xffffffffu, 0,
				"Z9", "_", 1, types + 10, names + 10);
	ck_assert_int_gt(n3, 0);

	memset(&ev, 0x5a, sizeof(ev));
	ck_assert_int_eq(proto_event_decode(buf, (size_t)(n1 + n2 + n3), &pos, &ev), 1);
	ck_assert_uint_eq(pos, (size_t)n1);
	ck_assert_uint_eq(ev.id, 7);
	ck_assert_int_eq(ev.loglevel, SHMTRACE_INFO);
	ck_assert_str_eq(ev.name, "myapp:request_begin");
	ck_assert_uint_eq(ev.nfields, 16);
	for (int i = 0; i < 16; i++) {
		ck_assert_uint_eq(ev.fields[i].type, types[i]);
		ck_assert_str_eq(ev.fields[i].name, names[i]);
	}
	ck_assert_int_eq(proto_event_decode(buf, (size_t)(n1 + n2 + n3), &pos, &ev), 1);
	ck_assert_uint_eq(pos, (size_t)(n1 + n2));
	ck_assert_uint_eq(ev.id, 300);
	ck_assert_int_eq(ev.loglevel, -3);
	ck_assert_str_eq(ev.name, "p:e");
	ck_assert_uint_eq(ev.nfields, 0);
	ck_assert_int_eq(proto_event_decode(buf, (size_t)(n1 + n2 + n3), &pos, &ev), 1);
	ck_assert_uint_eq(ev.id, 0xffffffffu);
	ck_assert_str_eq(ev.name, "Z9:_");
	ck_assert_uint_eq(ev.nfields, 1);
	ck_assert_uint_eq(ev.fields[0].type, SHMTRACE_TYPE_STRING);
	ck_assert_str_eq(ev.fields[0].name, "str");
	/* end of the buffer */
	ck_assert_int_eq(proto_event_decode(buf, (size_t)(n1 + n2 + n3), &pos, &ev), 0);
	ck_assert_uint_eq(pos, (size_t)(n1 + n2 + n3));
}
END_TEST

START_TEST(test_event_wire_layout)
{
	static const uint32_t types[] = { SHMTRACE_TYPE_U16 };
	static const char *const names[] = { "len" };
	static const char expect[] =
		"\x05\x00\x00\x00" "\xfe\xff\xff\xff" "\x01\x00" "\x05\x00" "ab:cd"
		"\x02\x00\x00\x00" "\x03\x00" "len";
	char buf[64];

	ck_assert_int_eq(proto_event_encode(buf, sizeof(buf), 5, -2, "ab", "cd", 1, types, names),
			 (long)sizeof(expect) - 1);
	ck_assert_mem_eq(buf, expect, sizeof(expect) - 1);
}
END_TEST

START_TEST(test_event_encode_limits)
{
	static const uint32_t types[PROTO_MAX_FIELDS + 1] = { SHMTRACE_TYPE_U8 };
	const char *names[PROTO_MAX_FIELDS + 1];
	char fname[PROTO_FIELDNAME_MAX + 1];
	char prov[PROTO_EVNAME_MAX + 1];
	char buf[2048];
	long full;

	for (int i = 0; i <= PROTO_MAX_FIELDS; i++)
		names[i] = "f";
	/* every capacity below the record's size fails with -ENOSPC */
	full = proto_event_encode(buf, sizeof(buf), 1, 2, "prov", "event", 1, types, names);
	ck_assert_int_eq(full, 12 + 10 + 4 + 2 + 1);
	for (long cap = 0; cap < full; cap++) {
		memset(buf, 0x77, sizeof(buf));
		ck_assert_int_eq(proto_event_encode(buf, (size_t)cap, 1, 2, "prov", "event", 1,
						    types, names), -ENOSPC);
		/* nothing written past the capacity */
		for (size_t j = (size_t)cap; j < sizeof(buf); j++)
			ck_assert_int_eq(buf[j], 0x77);
	}
	ck_assert_int_eq(proto_event_encode(buf, (size_t)full, 1, 2, "prov", "event", 1, types,
					    names), full);
	/* too many fields */
	ck_assert_int_eq(proto_event_encode(buf, sizeof(buf), 1, 2, "p", "e",
					    PROTO_MAX_FIELDS + 1, types, names), -EINVAL);
	/* field name too long */
	memset(fname, 'f', PROTO_FIELDNAME_MAX);
	fname[PROTO_FIELDNAME_MAX] = 0;
	names[0] = fname;
	ck_assert_int_lt(proto_event_encode(buf, sizeof(buf), 1, 2, "p", "e", 1, types, names), 0);
	fname[PROTO_FIELDNAME_MAX - 1] = 0;
	ck_assert_int_gt(proto_event_encode(buf, sizeof(buf), 1, 2, "p", "e", 1, types, names), 0);
	/* event name ("provider:event") too long */
	memset(prov, 'p', PROTO_EVNAME_MAX);
	prov[PROTO_EVNAME_MAX - 3] = 0;		/* 253 + ":" + "ab" = 256 */
	ck_assert_int_eq(proto_event_encode(buf, sizeof(buf), 1, 2, prov, "ab", 0, NULL, NULL),
			 -EINVAL);
	ck_assert_int_eq(proto_event_encode(buf, sizeof(buf), 1, 2, prov, "a", 0, NULL, NULL),
			 12 + PROTO_EVNAME_MAX - 1);
}
END_TEST

START_TEST(test_event_decode_truncated)
{
	static const uint32_t types[] = {
		SHMTRACE_TYPE_U32, SHMTRACE_TYPE_STRING, SHMTRACE_TYPE_SEQ | SHMTRACE_TYPE_U8,
	};
	static const char *const names[] = { "id", "path", "body" };
	char buf[256], *copy;
	struct proto_event ev;
	long n;

	n = proto_event_encode(buf, sizeof(buf), 9, 6, "myapp", "ev", 3, types, names);
	ck_assert_int_gt(n, 0);
	for (long len = 0; len <= n; len++) {
		size_t pos = 0;
		int ret;

		/* an exact-size heap copy, so that an over-read is not hidden */
		copy = malloc(len ? (size_t)len : 1);
		ck_assert_ptr_nonnull(copy);
		memcpy(copy, buf, (size_t)len);
		ret = proto_event_decode(copy, (size_t)len, &pos, &ev);
		if (len == 0)
			ck_assert_int_eq(ret, 0);
		else if (len < n)
			ck_assert_msg(ret == -EPROTO, "truncated at %ld: %d", len, ret);
		else
			ck_assert_int_eq(ret, 1);
		free(copy);
	}
	/* a position at or past the end means no more records */
	{
		size_t pos = (size_t)n + 5;

		ck_assert_int_eq(proto_event_decode(buf, (size_t)n, &pos, &ev), 0);
	}
}
END_TEST

static int decode_name(const char *name, size_t len)
{
	struct rbuf r = { .len = 0 };
	struct proto_event ev;

	rb_event(&r, 1, 0, 0, name, len);
	return decode_all(&r, &ev);
}

START_TEST(test_event_decode_names)
{
	static const char *const good[] = {
		"a:b", "myapp:request_begin", "_:_", "A1:b2", "a_9:Z_", "__x:y__",
	};
	static const char *const bad[] = {
		"", ":", "ab", "myapp", ":ev", "prov:", "::", "a::b", "a:b:c", "1a:b",
		"a:1b", "a-b:c", "a:b-c", "a b:c", "a:b ", " a:b", "a.b:c", "a:b\n",
		"a/b:c", "a:\"b", "a:b;", "a:b}", "\xc3\xa9:b", "a:\xff",
	};
	char name[PROTO_EVNAME_MAX + 8];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(decode_name(good[i], strlen(good[i])) == 1, "rejected \"%s\"", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(decode_name(bad[i], strlen(bad[i])) == -EPROTO,
			      "accepted \"%s\"", bad[i]);
	/* embedded NUL */
	ck_assert_int_eq(decode_name("a:b\0c", 5), -EPROTO);
	ck_assert_int_eq(decode_name("a\0:b", 4), -EPROTO);
	/* length limits: 255 bytes accepted, 256 rejected */
	memset(name, 'n', sizeof(name));
	name[100] = ':';
	ck_assert_int_eq(decode_name(name, PROTO_EVNAME_MAX - 1), 1);
	ck_assert_int_eq(decode_name(name, PROTO_EVNAME_MAX), -EPROTO);
	ck_assert_int_eq(decode_name(name, PROTO_EVNAME_MAX + 7), -EPROTO);
}
END_TEST

static int decode_fields(int nf, const uint32_t *types, const char *const *names)
{
	struct rbuf r = { .len = 0 };
	struct proto_event ev;

	rb_event(&r, 1, 0, (uint16_t)nf, "p:e", 3);
	for (int i = 0; i < nf; i++)
		rb_field(&r, types[i], names[i], strlen(names[i]));
	return decode_all(&r, &ev);
}

START_TEST(test_event_decode_fields)
{
	uint32_t types[PROTO_MAX_FIELDS + 2];
	const char *names[PROTO_MAX_FIELDS + 2];
	static const char *const fnames[] = {
		"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9",
		"f10", "f11", "f12", "f13", "f14", "f15", "f16", "f17",
	};
	static const char *const badnames[] = {
		"", "1a", "a-b", "a b", "a:b", "a.b", "\xc3\xa9", "a\"", "a;", "a[1]",
	};
	char longname[PROTO_FIELDNAME_MAX + 1];

	for (int i = 0; i < PROTO_MAX_FIELDS + 2; i++) {
		types[i] = SHMTRACE_TYPE_U32;
		names[i] = fnames[i];
	}
	ck_assert_int_eq(decode_fields(PROTO_MAX_FIELDS, types, names), 1);
	/* too many fields */
	ck_assert_int_eq(decode_fields(PROTO_MAX_FIELDS + 1, types, names), -EPROTO);
	ck_assert_int_eq(decode_fields(PROTO_MAX_FIELDS + 2, types, names), -EPROTO);
	/* a field count of 65535 with no fields after it */
	{
		struct rbuf r = { .len = 0 };
		struct proto_event ev;

		rb_event(&r, 1, 0, 0xffff, "p:e", 3);
		ck_assert_int_eq(decode_all(&r, &ev), -EPROTO);
	}
	/* duplicate field names, adjacent or not */
	names[1] = "f0";
	ck_assert_int_eq(decode_fields(2, types, names), -EPROTO);
	names[1] = fnames[1];
	names[15] = "f3";
	ck_assert_int_eq(decode_fields(16, types, names), -EPROTO);
	names[15] = fnames[15];
	/* bad field names */
	for (size_t i = 0; i < sizeof(badnames) / sizeof(badnames[0]); i++) {
		names[2] = badnames[i];
		ck_assert_msg(decode_fields(3, types, names) == -EPROTO, "accepted field \"%s\"",
			      badnames[i]);
	}
	/* 63 bytes accepted, 64 rejected */
	memset(longname, 'x', sizeof(longname));
	longname[PROTO_FIELDNAME_MAX - 1] = 0;
	names[2] = longname;
	ck_assert_int_eq(decode_fields(3, types, names), 1);
	longname[PROTO_FIELDNAME_MAX - 1] = 'x';
	longname[PROTO_FIELDNAME_MAX] = 0;
	ck_assert_int_eq(decode_fields(3, types, names), -EPROTO);
	names[2] = fnames[2];
	/* embedded NUL in a field name */
	{
		struct rbuf r = { .len = 0 };
		struct proto_event ev;

		rb_event(&r, 1, 0, 1, "p:e", 3);
		rb_field(&r, SHMTRACE_TYPE_U8, "ab\0c", 4);
		ck_assert_int_eq(decode_all(&r, &ev), -EPROTO);
	}
}
END_TEST

START_TEST(test_event_decode_types)
{
	static const char *const names[] = { "v" };
	int accepted = 0;

	for (uint32_t t = 0; t < 0x400; t++) {
		uint32_t base = t & ~(uint32_t)SHMTRACE_TYPE_SEQ;
		int want;

		if (t & SHMTRACE_TYPE_SEQ)
			want = t < 0x200 && base >= SHMTRACE_TYPE_U8 && base <= SHMTRACE_TYPE_S64;
		else
			want = t >= SHMTRACE_TYPE_U8 && t <= SHMTRACE_TYPE_STRING;
		ck_assert_msg(proto_type_valid(t) == want, "proto_type_valid(%#x)", t);
		ck_assert_msg(decode_fields(1, &t, names) == (want ? 1 : -EPROTO), "type %#x", t);
		accepted += want;
	}
	ck_assert_int_eq(accepted, 11 + 8);
	{
		static const uint32_t odd[] = {
			0xffffffffu, 0x80000001u, 0x10001u, 0x100u | 0x10000u, 0x1100u,
		};

		for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
			ck_assert_int_eq(proto_type_valid(odd[i]), 0);
			ck_assert_int_eq(decode_fields(1, &odd[i], names), -EPROTO);
		}
	}
}
END_TEST

/* ---- MSG_CMD arguments ------------------------------------------------------ */

struct cmdbuf {
	char b[8192];
	size_t len;
};

/* A MSG_CMD of @verb with a body of @bsize zero bytes; strings follow. */
static void cmd_init(struct cmdbuf *c, uint32_t verb, uint32_t bsize, uint32_t nstr,
		     const char *session)
{
	struct msg_cmd m;

	memset(&m, 0, sizeof(m));
	m.verb = verb;
	m.body_size = bsize;
	m.nstr = nstr;
	strncpy(m.session, session, sizeof(m.session) - 1);
	memcpy(c->b, &m, sizeof(m));
	memset(c->b + sizeof(m), 0, bsize);
	c->len = sizeof(m) + bsize;
}

static void cmd_add(struct cmdbuf *c, const char *s, size_t n)
{
	ck_assert_uint_le(c->len + n, sizeof(c->b));
	memcpy(c->b + c->len, s, n);
	c->len += n;
}

/* proto_cmd_decode on an exact-size heap copy */
static int cmd_parse(const struct cmdbuf *c, struct proto_cmd *out)
{
	char *copy = malloc(c->len);
	int ret;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, c->b, c->len);
	ret = proto_cmd_decode(copy, c->len, out);
	if (ret == 0 && out->nstr) {
		/* the strings point into the message and tile its end exactly */
		const char *p = out->str[0];

		for (uint32_t i = 0; i < out->nstr; i++) {
			ck_assert_ptr_eq(out->str[i], p);
			p += strlen(p) + 1;
		}
		ck_assert_ptr_eq(p, copy + c->len);
	}
	free(copy);
	return ret;
}

#define EVB	(uint32_t)sizeof(struct cmd_events)

START_TEST(test_cmd_decode)
{
	static struct proto_cmd out;
	struct cmdbuf c;

	/* verbs without a body */
	cmd_init(&c, VERB_LIST, 0, 0, "");
	ck_assert_int_eq(cmd_parse(&c, &out), 0);
	ck_assert_uint_eq(out.verb, VERB_LIST);
	cmd_init(&c, VERB_START, 0, 0, "sess");
	ck_assert_int_eq(cmd_parse(&c, &out), 0);
	ck_assert_str_eq(out.session, "sess");
	/* well-formed lists of patterns */
	cmd_init(&c, VERB_ENABLE_EVENT, EVB, 1, "s");
	cmd_add(&c, "myapp:*", 8);
	ck_assert_int_eq(cmd_parse(&c, &out), 0);
	ck_assert_uint_eq(out.nstr, 1);
	cmd_init(&c, VERB_ENABLE_EVENT, EVB, 3, "s");
	cmd_add(&c, "a\0bc\0\0", 6);	/* "a", "bc", "" */
	ck_assert_int_eq(cmd_parse(&c, &out), 0);
	ck_assert_uint_eq(out.nstr, 3);
	/* the body is copied */
	cmd_init(&c, VERB_ENABLE_EVENT, EVB, 1, "s");
	memcpy(c.b + sizeof(struct msg_cmd), "chan1", 6);
	cmd_add(&c, "x", 2);
	ck_assert_int_eq(cmd_parse(&c, &out), 0);
	ck_assert_str_eq(out.b.events.channel, "chan1");
	/* a body of another size, or where none goes */
	cmd_init(&c, VERB_ENABLE_EVENT, EVB - 1, 1, "s");
	cmd_add(&c, "x", 2);
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	cmd_init(&c, VERB_STOP, 8, 0, "s");
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	cmd_init(&c, VERB_CLEAR, 0, 0, "s");
	ck_assert_int_eq(cmd_parse(&c, &out), 0);
	cmd_init(&c, VERB_CLEAR, 8, 0, "s");
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	cmd_init(&c, VERB_ENABLE_EVENT, 0, 1, "s");
	((struct msg_cmd *)(void *)c.b)->body_size = 0xffffffffu;
	cmd_add(&c, "x", 2);
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	/* the body is cut short */
	cmd_init(&c, VERB_CREATE, sizeof(struct cmd_create), 0, "s");
	c.len -= 1;
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	/* a name of the body not terminated */
	cmd_init(&c, VERB_ENABLE_EVENT, EVB, 1, "s");
	memset(c.b + sizeof(struct msg_cmd), 'x', PROTO_NAME_MAX);
	cmd_add(&c, "x", 2);
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	cmd_init(&c, VERB_CREATE, sizeof(struct cmd_create), 0, "s");
	memset(c.b + sizeof(struct msg_cmd) + offsetof(struct cmd_create, data_url), 'x',
	       PROTO_URL_MAX);
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	/* counts out of bounds */
	cmd_init(&c, VERB_CREATE, sizeof(struct cmd_create), 0, "s");
	((struct cmd_create *)(void *)(c.b + sizeof(struct msg_cmd)))->nallow = PROTO_ALLOW_MAX + 1;
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	cmd_init(&c, VERB_ENABLE_EVENT, EVB, 0, "s");
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);		/* no pattern */
	cmd_init(&c, VERB_START, 0, 1, "s");
	cmd_add(&c, "x", 2);
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);		/* a string where none goes */
	cmd_init(&c, VERB_DISABLE_AGG, 0, PROTO_CMD_MAX_STR, "s");
	for (int i = 0; i < PROTO_CMD_MAX_STR; i++)
		cmd_add(&c, "a", 2);
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);		/* too many */
	/* a filter flag without its string */
	cmd_init(&c, VERB_ENABLE_EVENT, EVB, 1, "s");
	((struct cmd_events *)(void *)(c.b + sizeof(struct msg_cmd)))->filter = 1;
	cmd_add(&c, "x", 2);
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	/* exclusions: after the filter, before at least one pattern */
	cmd_init(&c, VERB_ENABLE_EVENT, EVB, 3, "s");
	((struct cmd_events *)(void *)(c.b + sizeof(struct msg_cmd)))->nexclude = 2;
	cmd_add(&c, "a:x\0a:y\0a:*", 12);
	ck_assert_int_eq(cmd_parse(&c, &out), 0);
	ck_assert_uint_eq(out.b.events.nexclude, 2);
	cmd_init(&c, VERB_ENABLE_EVENT, EVB, 2, "s");
	((struct cmd_events *)(void *)(c.b + sizeof(struct msg_cmd)))->nexclude = 2;
	cmd_add(&c, "a:x\0a:y", 8);
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);		/* no pattern left */
	cmd_init(&c, VERB_ENABLE_EVENT, EVB, PROTO_EXCLUDE_MAX + 2, "s");
	((struct cmd_events *)(void *)(c.b + sizeof(struct msg_cmd)))->nexclude =
		PROTO_EXCLUDE_MAX + 1;
	for (int i = 0; i < PROTO_EXCLUDE_MAX + 2; i++)
		cmd_add(&c, "a", 2);
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);		/* too many exclusions */
	cmd_init(&c, VERB_DISABLE_EVENT, EVB, 2, "s");
	((struct cmd_events *)(void *)(c.b + sizeof(struct msg_cmd)))->nexclude = 1;
	cmd_add(&c, "a:x\0a:*", 8);
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);		/* none for disable-event */
	/* track: counts and kinds bounded, 0 to 16 globs */
	cmd_init(&c, VERB_TRACK, sizeof(struct cmd_track), 1, "s");
	((struct cmd_track *)(void *)(c.b + sizeof(struct msg_cmd)))->npid = 2;
	cmd_add(&c, "/usr/bin/*", 11);
	ck_assert_int_eq(cmd_parse(&c, &out), 0);
	ck_assert_uint_eq(out.b.track.npid, 2);
	cmd_init(&c, VERB_UNTRACK, sizeof(struct cmd_track), 0, "s");
	((struct cmd_track *)(void *)(c.b + sizeof(struct msg_cmd)))->nuid = PROTO_TRACK_MAX + 1;
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	cmd_init(&c, VERB_TRACK, sizeof(struct cmd_track), 0, "s");
	((struct cmd_track *)(void *)(c.b + sizeof(struct msg_cmd)))->all = CMD_TRACK_KINDS + 1;
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	cmd_init(&c, VERB_TRACK, sizeof(struct cmd_track), PROTO_TRACK_EXE_MAX + 1, "s");
	for (int i = 0; i < PROTO_TRACK_EXE_MAX + 1; i++)
		cmd_add(&c, "a", 2);
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	/* regenerate: its body, no string */
	cmd_init(&c, VERB_REGENERATE, sizeof(struct cmd_regenerate), 0, "s");
	ck_assert_int_eq(cmd_parse(&c, &out), 0);
	cmd_init(&c, VERB_DISABLE_CHANNEL, 0, 0, "s");
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);		/* no channel */
	/* unknown verbs */
	cmd_init(&c, 0, 0, 0, "s");
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	cmd_init(&c, VERB_MAX, 0, 0, "s");
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	/* unterminated last string */
	cmd_init(&c, VERB_ENABLE_EVENT, EVB, 2, "s");
	cmd_add(&c, "a\0bc", 4);
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	/* fewer strings than said */
	cmd_init(&c, VERB_ENABLE_EVENT, EVB, 3, "s");
	cmd_add(&c, "a\0b", 4);
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	/* trailing garbage after the last string */
	cmd_init(&c, VERB_ENABLE_EVENT, EVB, 1, "s");
	cmd_add(&c, "a\0x", 3);
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	cmd_init(&c, VERB_LIST, 0, 0, "s");
	cmd_add(&c, "\0", 1);
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	/* session name not terminated */
	cmd_init(&c, VERB_LIST, 0, 0, "");
	memset(c.b + offsetof(struct msg_cmd, session), 'x', PROTO_NAME_MAX);
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
	memset(c.b + offsetof(struct msg_cmd, session) + PROTO_NAME_MAX - 1, 0, 1);
	ck_assert_int_eq(cmd_parse(&c, &out), 0);
	/* shorter than the fixed part */
	cmd_init(&c, VERB_LIST, 0, 0, "");
	c.len = sizeof(struct msg_cmd) - 1;
	ck_assert_int_eq(cmd_parse(&c, &out), -EPROTO);
}
END_TEST

START_TEST(test_cmd_encode)
{
	static struct proto_cmd out;
	static char buf[PROTO_MAX_MSG];
	struct cmd_aggregate a = { .name = "lat", .pattern = "app:*", .nfuncs = 1, .filter = 1 };
	const char *str[] = { "d > 5" };
	long n;

	a.func[0].fn = 1;
	snprintf(a.func[0].field, sizeof(a.func[0].field), "d");
	n = proto_cmd_encode(buf, sizeof(buf), VERB_AGGREGATE, "s1", &a, 1, str);
	ck_assert_int_eq(n, (long)(sizeof(struct msg_cmd) + sizeof(a) + 6));
	ck_assert_int_eq(proto_cmd_decode(buf, (size_t)n, &out), 0);
	ck_assert_str_eq(out.session, "s1");
	ck_assert_str_eq(out.b.aggregate.pattern, "app:*");
	ck_assert_str_eq(out.b.aggregate.func[0].field, "d");
	ck_assert_str_eq(out.str[0], "d > 5");
	/* no body for verbs without one, whatever is passed */
	n = proto_cmd_encode(buf, sizeof(buf), VERB_STOP, "", NULL, 0, NULL);
	ck_assert_int_eq(n, (long)sizeof(struct msg_cmd));
	/* refused: unknown verb, long session, no room */
	ck_assert_int_eq(proto_cmd_encode(buf, sizeof(buf), VERB_MAX, "", NULL, 0, NULL), -EINVAL);
	memset(buf, 'x', PROTO_NAME_MAX);
	buf[PROTO_NAME_MAX] = 0;
	ck_assert_int_eq(proto_cmd_encode(buf + 100, 1000, VERB_STOP, buf, NULL, 0, NULL),
			 -EINVAL);
	ck_assert_int_eq(proto_cmd_encode(buf, sizeof(struct msg_cmd) + sizeof(a) + 3,
					  VERB_AGGREGATE, "s1", &a, 1, str), -EMSGSIZE);
}
END_TEST

/* An item body: the header then @len bytes of @rec. */
static size_t item(char *buf, uint32_t kind, uint32_t version, const void *rec, size_t len)
{
	struct msg_item h = { .kind = kind, .version = version };

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), rec, len);
	return sizeof(h) + len;
}

/* Records of replies: sizes, offsets, and what the reader refuses or skips. */
START_TEST(test_item_decode)
{
	static char buf[PROTO_MAX_MSG];
	static union proto_rec_body in, out;
	struct {
		uint32_t kind;
		size_t off, len;	/* a char array of the record */
	} strs[] = {
		{ REC_SESSION, offsetof(struct rec_session, name), PROTO_NAME_MAX },
		{ REC_SESSION, offsetof(struct rec_session, output), PROTO_PATH_MAX },
		{ REC_SESSION, offsetof(struct rec_session, relay_path), 256 },
		{ REC_SESSION, offsetof(struct rec_session, stream_why), PROTO_WHY_MAX },
		{ REC_CHANNEL, offsetof(struct rec_channel, name), PROTO_NAME_MAX },
		{ REC_CHANNEL, offsetof(struct rec_channel, stats.werr_path), PROTO_PATH_MAX },
		{ REC_ENABLER, offsetof(struct rec_enabler, filter), PROTO_FILTER_MAX },
		{ REC_PROCESS, offsetof(struct rec_process, name), PROTO_PROCNAME },
		{ REC_NOTICE, offsetof(struct rec_notice, path), PROTO_PATH_MAX },
		{ REC_AGGREGATION, offsetof(struct rec_agg, key[3].field), REC_AGG_FIELD },
		{ REC_AGGREGATION, offsetof(struct rec_agg, func[7].field), REC_AGG_FIELD },
		{ REC_EVENT, offsetof(struct rec_event, field[15].name), PROTO_FIELDNAME_MAX },
		{ REC_SNAPSHOT, offsetof(struct rec_snapshot, output), PROTO_PATH_MAX },
		{ REC_ROTATION, offsetof(struct rec_rotation, path), PROTO_PATH_MAX },
		{ REC_NOTE, offsetof(struct rec_error, detail), PROTO_WHY_MAX },
		{ REC_ERROR, offsetof(struct rec_error, path), PROTO_PATH_MAX },
		{ REC_DAEMON, offsetof(struct rec_daemon, home), PROTO_PATH_MAX },
	};
	uint32_t kind;
	size_t n;

	/* the layouts doc/protocol.md gives */
	ck_assert_uint_eq(sizeof(struct rec_session), 5096);
	ck_assert_uint_eq(sizeof(struct rec_channel), 4456);
	ck_assert_uint_eq(sizeof(struct rec_enabler), 4496);
	ck_assert_uint_eq(sizeof(struct rec_process), 112);
	ck_assert_uint_eq(sizeof(struct rec_notice), 4192);
	ck_assert_uint_eq(sizeof(struct rec_agg), 5112);
	ck_assert_uint_eq(sizeof(struct rec_event), 1424);
	ck_assert_uint_eq(sizeof(struct rec_snapshot), 8264);
	ck_assert_uint_eq(sizeof(struct rec_rotation), 4184);
	ck_assert_uint_eq(sizeof(struct rec_error), 5032);
	ck_assert_uint_eq(sizeof(struct rec_daemon), 4136);
	ck_assert_uint_eq(offsetof(struct rec_channel, stats) + offsetof(struct msg_c_stats, wlost),
			  184 + 56);
	ck_assert_uint_eq(offsetof(struct rec_channel, stats) + offsetof(struct msg_c_stats, cleared),
			  184 + 4248);
	ck_assert_uint_eq(offsetof(struct rec_error, n), 8);
	ck_assert_uint_eq(offsetof(struct rec_error, session), 40);
	for (uint32_t k = 1; k < REC_MAX; k++)
		ck_assert_uint_lt(sizeof(struct msg_item) + proto_rec_size(k),
				  PROTO_MAX_MSG - sizeof(struct proto_hdr));

	/* a record read back as it was written */
	memset(&in, 0, sizeof(in));
	snprintf(in.channel.session, sizeof(in.channel.session), "s");
	snprintf(in.channel.name, sizeof(in.channel.name), "channel0");
	in.channel.stats.events = 400002;
	in.channel.stats.werr = ENOSPC;
	n = item(buf, REC_CHANNEL, PROTO_REC_VERSION, &in, sizeof(in.channel));
	ck_assert_int_eq(proto_item_decode(buf, n, &kind, &out), 1);
	ck_assert_uint_eq(kind, REC_CHANNEL);
	ck_assert_mem_eq(&out, &in, sizeof(in.channel));

	/* a later version, longer: its prefix is ours */
	n = item(buf, REC_CHANNEL, PROTO_REC_VERSION + 1, &in, sizeof(in.channel));
	memset(buf + n, 0x55, 64);
	ck_assert_int_eq(proto_item_decode(buf, n + 64, &kind, &out), 1);
	ck_assert_uint_eq(out.channel.stats.events, 400002);

	/* shorter, earlier, or no header: refused */
	n = item(buf, REC_CHANNEL, PROTO_REC_VERSION, &in, sizeof(in.channel));
	ck_assert_int_eq(proto_item_decode(buf, n - 1, &kind, &out), -EPROTO);
	ck_assert_int_eq(proto_item_decode(buf, sizeof(struct msg_item), &kind, &out), -EPROTO);
	ck_assert_int_eq(proto_item_decode(buf, 7, &kind, &out), -EPROTO);
	n = item(buf, REC_CHANNEL, PROTO_REC_VERSION - 1, &in, sizeof(in.channel));
	ck_assert_int_eq(proto_item_decode(buf, n, &kind, &out), -EPROTO);

	/* a kind of a later daemon: skipped, whatever it holds */
	n = item(buf, REC_MAX + 7, 1, "xyz", 3);
	ck_assert_int_eq(proto_item_decode(buf, n, &kind, &out), 0);
	ck_assert_uint_eq(kind, REC_MAX + 7);
	n = item(buf, 0, 1, "", 0);
	ck_assert_int_eq(proto_item_decode(buf, n, &kind, &out), 0);

	/* every char array must hold its NUL */
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		size_t size = proto_rec_size(strs[i].kind);

		memset(&in, 0, sizeof(in));
		n = item(buf, strs[i].kind, PROTO_REC_VERSION, &in, size);
		ck_assert_int_eq(proto_item_decode(buf, n, &kind, &out), 1);
		memset(buf + sizeof(struct msg_item) + strs[i].off, 'a', strs[i].len);
		ck_assert_msg(proto_item_decode(buf, n, &kind, &out) == -EPROTO,
			      "kind %u, string at %zu", strs[i].kind, strs[i].off);
		buf[sizeof(struct msg_item) + strs[i].off + strs[i].len - 1] = 0;
		ck_assert_int_eq(proto_item_decode(buf, n, &kind, &out), 1);
	}
}
END_TEST

START_TEST(test_name_rules)
{
	ck_assert(proto_name_ok("s"));
	ck_assert(proto_name_ok("web-1_prod.x"));
	ck_assert(!proto_name_ok(""));
	ck_assert(!proto_name_ok(".hidden"));
	ck_assert(!proto_name_ok("a/b"));
	ck_assert(!proto_name_ok("a b"));
	ck_assert(!proto_name_ok("a\tb"));
	ck_assert(!proto_name_ok("a\x7f"));
	ck_assert(proto_name_ok("123456789012345678901234567890123456789012345678901234567890123"));
	ck_assert(!proto_name_ok("1234567890123456789012345678901234567890123456789012345678901234"));
}
END_TEST

/* ---- messages ------------------------------------------------------------- */

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own descriptor */
}

static void sockpair(int sv[2])
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
}

/* A memfd holding @text. */
static int memfd_with(const char *text)
{
	int fd = memfd_create("test-proto", MFD_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	return fd;
}

static void check_memfd(int fd, const char *text)
{
	char buf[64];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	ck_assert_int_ge(n, 0);
	buf[n] = 0;
	ck_assert_str_eq(buf, text);
	/* received with close-on-exec */
	ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
}

START_TEST(test_send_recv)
{
	static char buf[PROTO_MAX_MSG];
	struct proto_hdr h;
	int sv[2], fds[PROTO_MAX_FDS], in[PROTO_MAX_FDS + 1] = { -1, -1, -1, -1, -1 }, p[2];
	struct msg_cmd cmd;
	struct msg_segment seg;
	struct msg_app_register reg;
	long n;
	int before = count_fds();

	sockpair(sv);
	/* MSG_CMD with arguments, no descriptor */
	memset(&cmd, 0, sizeof(cmd));
	cmd.verb = VERB_LIST;
	cmd.nstr = 1;
	strcpy(cmd.session, "s1");
	ck_assert_int_eq(proto_sendv(sv[0], MSG_CMD, 0, &cmd, sizeof(cmd), "arg", 4, NULL, 0), 0);
	n = proto_recv(sv[1], buf, &h, fds, 0);
	ck_assert_int_eq(n, sizeof(cmd) + 4);
	ck_assert_uint_eq(h.magic, PROTO_MAGIC);
	ck_assert_uint_eq(h.version, PROTO_VERSION);
	ck_assert_uint_eq(h.type, MSG_CMD);
	ck_assert_uint_eq(h.size, sizeof(h) + sizeof(cmd) + 4);
	ck_assert_int_eq(h.status, 0);
	ck_assert_mem_eq(buf, &cmd, sizeof(cmd));
	ck_assert_str_eq(buf + sizeof(cmd), "arg");

	/* a reply with a status and no body */
	ck_assert_int_eq(proto_send(sv[1], MSG_REPLY, -ENOENT, NULL, 0, NULL, 0), 0);
	ck_assert_int_eq(proto_recv(sv[0], buf, &h, fds, 0), 0);
	ck_assert_uint_eq(h.type, MSG_REPLY);
	ck_assert_int_eq(h.status, -ENOENT);

	/* the largest message */
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(proto_send(sv[0], MSG_REPLY_ITEM, 0, buf, PROTO_MAX_MSG - sizeof(h),
				    NULL, 0), 0);
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(proto_recv(sv[1], buf, &h, fds, 0), PROTO_MAX_MSG - sizeof(h));
	ck_assert_int_eq(buf[0], 'x');
	ck_assert_int_eq(buf[PROTO_MAX_MSG - sizeof(h) - 1], 'x');
	ck_assert_int_eq(proto_send(sv[0], MSG_REPLY_ITEM, 0, buf, PROTO_MAX_MSG - sizeof(h) + 1,
				    NULL, 0), -EMSGSIZE);
	ck_assert_int_eq(proto_send(sv[0], MSG_REPLY, 0, NULL, 0, in, PROTO_MAX_FDS + 1),
			 -EMSGSIZE);
	ck_assert_int_eq(proto_send(sv[0], MSG_REPLY, 0, NULL, 0, in, -1), -EMSGSIZE);

	/* one descriptor */
	memset(&seg, 0, sizeof(seg));
	seg.chan_id = 42;
	seg.size = 8192;
	in[0] = memfd_with("segment");
	ck_assert_int_eq(proto_send(sv[0], MSG_APP_SEGMENT, 0, &seg, sizeof(seg), in, 1), 0);
	close(in[0]);
	fds[0] = -1;
	ck_assert_int_eq(proto_recv(sv[1], buf, &h, fds, 0), sizeof(seg));
	ck_assert_uint_eq(h.type, MSG_APP_SEGMENT);
	ck_assert_mem_eq(buf, &seg, sizeof(seg));
	ck_assert_int_ge(fds[0], 0);
	check_memfd(fds[0], "segment");
	close(fds[0]);

	/* three descriptors of different kinds */
	memset(&reg, 0, sizeof(reg));
	reg.pid = 1234;
	strcpy(reg.procname, "app");
	in[0] = memfd_with("ctl");
	in[1] = memfd_with("proc");
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	in[2] = p[1];
	ck_assert_int_eq(proto_send(sv[0], MSG_APP_REGISTER, 0, &reg, sizeof(reg), in, 3), 0);
	close(in[0]);
	close(in[1]);
	close(in[2]);
	ck_assert_int_eq(proto_recv(sv[1], buf, &h, fds, 0), sizeof(reg));
	ck_assert_uint_eq(h.type, MSG_APP_REGISTER);
	ck_assert_uint_eq(((struct msg_app_register *)(void *)buf)->pid, 1234);
	check_memfd(fds[0], "ctl");
	check_memfd(fds[1], "proc");
	ck_assert_int_eq(write(fds[2], "z", 1), 1);
	{
		char c = 0;

		ck_assert_int_eq(read(p[0], &c, 1), 1);
		ck_assert_int_eq(c, 'z');
	}
	close(fds[0]);
	close(fds[1]);
	close(fds[2]);
	close(p[0]);

	/* three descriptors (MSG_C_APP_ADD) */
	{
		struct msg_c_app app = { .app_id = 5, .pid = 77 };

		in[0] = memfd_with("page");
		in[1] = memfd_with("wake");
		in[2] = memfd_with("ctl");
		ck_assert_int_eq(proto_send(sv[1], MSG_C_APP_ADD, 0, &app, sizeof(app), in, 3), 0);
		close(in[0]);
		close(in[1]);
		close(in[2]);
		ck_assert_int_eq(proto_recv(sv[0], buf, &h, fds, 0), sizeof(app));
		check_memfd(fds[0], "page");
		check_memfd(fds[1], "wake");
		check_memfd(fds[2], "ctl");
		close(fds[0]);
		close(fds[1]);
		close(fds[2]);
	}

	/* nothing pending, then end of stream */
	ck_assert_int_eq(proto_recv(sv[1], buf, &h, fds, MSG_DONTWAIT), -EAGAIN);
	close(sv[0]);
	ck_assert_int_eq(proto_recv(sv[1], buf, &h, fds, 0), -ECONNRESET);
	close(sv[1]);
	ck_assert_int_eq(count_fds(), before);
}
END_TEST

/* Send raw bytes with @nfds fresh descriptors (closed here after sending). */
static void raw_send(int sock, const void *data, size_t len, int nfds)
{
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	union {
		char buf[CMSG_SPACE(sizeof(int) * 16)];
		struct cmsghdr align;
	} cm;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fds[16];

	ck_assert_int_le(nfds, 16);
	for (int i = 0; i < nfds; i++) {
		if (i % 2) {
			fds[i] = memfd_create("raw", MFD_CLOEXEC);
		} else {
			int p[2];

			ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
			close(p[1]);
			fds[i] = p[0];
		}
		ck_assert_int_ge(fds[i], 0);
	}
	if (nfds) {
		struct cmsghdr *c;

		memset(&cm, 0, sizeof(cm));
		msg.msg_control = cm.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	}
	ck_assert_int_eq(sendmsg(sock, &msg, MSG_NOSIGNAL), (ssize_t)len);
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
}

/* A message: header then @blen body bytes of zeros. */
static size_t build_msg(char *out, uint32_t magic, uint16_t version, uint16_t type,
			size_t blen, uint32_t size_field)
{
	struct proto_hdr h = {
		.magic = magic, .version = version, .type = type, .size = size_field,
	};

	memcpy(out, &h, sizeof(h));
	memset(out + sizeof(h), 0, blen);
	return sizeof(h) + blen;
}

struct badmsg {
	const char *what;
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	int32_t blen;		/* body bytes sent */
	int32_t size_delta;	/* size field minus bytes sent */
	int nfds;
};

#define SEG (int32_t)sizeof(struct msg_segment)
#define REG (int32_t)sizeof(struct msg_app_register)
#define CMD (int32_t)sizeof(struct msg_cmd)

static const struct badmsg bad[] = {
	{ "bad magic", 0x544d4854u, PROTO_VERSION, MSG_CMD, CMD, 0, 0 },
	{ "bad magic, fds", 0, PROTO_VERSION, MSG_APP_SEGMENT, SEG, 0, 1 },
	{ "byte-swapped magic", 0x53484d54u, PROTO_VERSION, MSG_REPLY, 0, 0, 0 },
	{ "bad version 0", PROTO_MAGIC, 0, MSG_CMD, CMD, 0, 0 },
	{ "bad version 2", PROTO_MAGIC, PROTO_VERSION + 1, MSG_APP_REGISTER, REG, 0, 3 },
	{ "size too large", PROTO_MAGIC, PROTO_VERSION, MSG_CMD, CMD, 1, 0 },
	{ "size too small", PROTO_MAGIC, PROTO_VERSION, MSG_CMD, CMD + 4, -1, 0 },
	{ "size 0", PROTO_MAGIC, PROTO_VERSION, MSG_REPLY, 8, -24, 0 },
	{ "size huge", PROTO_MAGIC, PROTO_VERSION, MSG_APP_SEGMENT, SEG, 0x10000000, 1 },
	{ "size short, fds", PROTO_MAGIC, PROTO_VERSION, MSG_APP_REGISTER, REG, -4, 3 },
	{ "body short: segment", PROTO_MAGIC, PROTO_VERSION, MSG_APP_SEGMENT, SEG - 1, 0, 1 },
	{ "body short: register", PROTO_MAGIC, PROTO_VERSION, MSG_APP_REGISTER, 0, 0, 3 },
	{ "body short: cmd", PROTO_MAGIC, PROTO_VERSION, MSG_CMD, CMD - 1, 0, 0 },
	{ "body short: events", PROTO_MAGIC, PROTO_VERSION, MSG_APP_EVENTS, 15, 0, 0 },
	{ "body short: channel", PROTO_MAGIC, PROTO_VERSION, MSG_C_CHANNEL_ADD, 100, 0, 0 },
	{ "body short: stats", PROTO_MAGIC, PROTO_VERSION, MSG_C_STATS, 7, 0, 0 },
	{ "body short: sync", PROTO_MAGIC, PROTO_VERSION, MSG_APP_SYNC, 7, 0, 0 },
	{ "body short: app", PROTO_MAGIC, PROTO_VERSION, MSG_C_APP_ADD, 55, 0, 3 },
	{ "body short: adopt end", PROTO_MAGIC, PROTO_VERSION, MSG_C_ADOPT_END, 151, 0, 0 },
	{ "fds: 2 for adopted app", PROTO_MAGIC, PROTO_VERSION, MSG_C_ADOPT_APP, 56, 0, 2 },
	{ "unknown type 0", PROTO_MAGIC, PROTO_VERSION, 0, 64, 0, 0 },
	{ "unknown type 5", PROTO_MAGIC, PROTO_VERSION, 5, 64, 0, 0 },
	{ "unknown type 15", PROTO_MAGIC, PROTO_VERSION, 15, 64, 0, 0 },
	{ "unknown type 40", PROTO_MAGIC, PROTO_VERSION, 40, 64, 0, 1 },
	{ "unknown type 67", PROTO_MAGIC, PROTO_VERSION, 67, 64, 0, 0 },
	{ "unknown type 0xffff", PROTO_MAGIC, PROTO_VERSION, 0xffff, 64, 0, 2 },
	{ "fds: 0 for segment", PROTO_MAGIC, PROTO_VERSION, MSG_APP_SEGMENT, SEG, 0, 0 },
	{ "fds: 2 for segment", PROTO_MAGIC, PROTO_VERSION, MSG_C_SEGMENT, SEG, 0, 2 },
	{ "fds: 2 for register", PROTO_MAGIC, PROTO_VERSION, MSG_APP_REGISTER, REG, 0, 2 },
	{ "fds: 4 for register", PROTO_MAGIC, PROTO_VERSION, MSG_APP_REGISTER, REG, 0, 4 },
	{ "fds: 2 for app add", PROTO_MAGIC, PROTO_VERSION, MSG_C_APP_ADD, 56, 0, 2 },
	{ "fds: 1 for cmd", PROTO_MAGIC, PROTO_VERSION, MSG_CMD, CMD, 0, 1 },
	{ "fds: 4 for reply", PROTO_MAGIC, PROTO_VERSION, MSG_REPLY, 0, 0, 4 },
	{ "fds: 5 (more than fit)", PROTO_MAGIC, PROTO_VERSION, MSG_APP_REGISTER, REG, 0, 5 },
	{ "fds: 12 (more than fit)", PROTO_MAGIC, PROTO_VERSION, MSG_REPLY, 0, 0, 12 },
	{ "shorter than a header", PROTO_MAGIC, PROTO_VERSION, MSG_REPLY, -4, 0, 0 },
	{ "shorter than a header, fds", PROTO_MAGIC, PROTO_VERSION, MSG_APP_SEGMENT, -15, 0, 1 },
	{ "longer than PROTO_MAX_MSG", PROTO_MAGIC, PROTO_VERSION, MSG_REPLY_ITEM,
	  PROTO_MAX_MSG, 0, 0 },
	{ "reply item shorter than its header", PROTO_MAGIC, PROTO_VERSION, MSG_REPLY_ITEM,
	  4, 0, 0 },
	{ "the text reply (65) of old", PROTO_MAGIC, PROTO_VERSION, 65, 16, 0, 0 },
	{ "longer than PROTO_MAX_MSG, fds", PROTO_MAGIC, PROTO_VERSION, MSG_APP_SEGMENT,
	  PROTO_MAX_MSG - 8, 0, 1 },
};

START_TEST(test_recv_rejects)
{
	static char buf[PROTO_MAX_MSG], msg[PROTO_MAX_MSG + 64];
	const struct badmsg *b = &bad[_i];
	struct proto_hdr h;
	int sv[2], fds[PROTO_MAX_FDS];
	int sndbuf = 4 * PROTO_MAX_MSG;
	int before;
	size_t len;

	sockpair(sv);
	ck_assert_int_eq(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)), 0);
	before = count_fds();
	if (b->blen < 0) {
		len = build_msg(msg, b->magic, b->version, b->type, 0, 16);
		len = (size_t)((int32_t)len + b->blen);
	} else {
		len = build_msg(msg, b->magic, b->version, b->type, (size_t)b->blen, 0);
		((struct proto_hdr *)(void *)msg)->size = (uint32_t)((int32_t)len + b->size_delta);
	}
	raw_send(sv[0], msg, len, b->nfds);
	/* a valid message behind it must still arrive intact */
	ck_assert_int_eq(proto_send(sv[0], MSG_REPLY, 7, "ok", 3, NULL, 0), 0);

	for (int i = 0; i < PROTO_MAX_FDS; i++)
		fds[i] = -1;
	ck_assert_msg(proto_recv(sv[1], buf, &h, fds, 0) == -EPROTO, "%s: not rejected", b->what);
	for (int i = 0; i < PROTO_MAX_FDS; i++)
		ck_assert_msg(fds[i] == -1, "%s: descriptor handed out", b->what);
	ck_assert_msg(count_fds() == before, "%s: descriptors leaked (%d before, %d after)",
		      b->what, before, count_fds());

	ck_assert_int_eq(proto_recv(sv[1], buf, &h, fds, MSG_DONTWAIT), 3);
	ck_assert_uint_eq(h.type, MSG_REPLY);
	ck_assert_int_eq(h.status, 7);
	ck_assert_str_eq(buf, "ok");
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/*
 * An empty message is not the end of a SOCK_SEQPACKET stream's peer only:
 * it may carry descriptors, which must be closed whatever is returned.
 */
START_TEST(test_recv_empty_with_fds)
{
	static char buf[PROTO_MAX_MSG];
	struct proto_hdr h;
	int sv[2], fds[PROTO_MAX_FDS] = { -1, -1, -1, -1 };
	int before, nfds = _i + 1;
	long ret;

	sockpair(sv);
	before = count_fds();
	raw_send(sv[0], "", 0, nfds);
	ck_assert_int_eq(proto_send(sv[0], MSG_REPLY, 7, "ok", 3, NULL, 0), 0);
	ret = proto_recv(sv[1], buf, &h, fds, 0);
	ck_assert_int_lt(ret, 0);
	for (int i = 0; i < PROTO_MAX_FDS; i++)
		ck_assert_int_eq(fds[i], -1);
	ck_assert_msg(count_fds() == before,
		      "empty message with %d descriptors: proto_recv returned %ld and leaked "
		      "%d descriptors", nfds, ret, count_fds() - before);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* The same raw path accepts the well-formed variants, so the table is fair. */
START_TEST(test_recv_raw_good)
{
	static char buf[PROTO_MAX_MSG], msg[PROTO_MAX_MSG];
	static const struct { uint16_t type; int32_t blen; int nfds; } good[] = {
		{ MSG_APP_SEGMENT, SEG, 1 }, { MSG_APP_REGISTER, REG, 3 }, { MSG_CMD, CMD, 0 },
		{ MSG_CMD, CMD + 10, 0 }, { MSG_REPLY, 0, 0 }, { MSG_C_APP_ADD, 56, 3 },
		{ MSG_C_SEGMENT, SEG + 1, 1 }, { MSG_C_STATS, 8, 0 },
		{ MSG_C_STATS_REPLY, (int32_t)sizeof(struct msg_c_stats), 0 },
		{ MSG_APP_EVENTS, 16, 0 }, { MSG_C_EVENTS, 100, 0 },
		{ MSG_C_CHANNEL_ADD, (int32_t)sizeof(struct msg_c_channel), 1 },
		{ MSG_C_CHANNEL_DEL, 8, 0 }, { MSG_C_FLUSH, 8, 0 }, { MSG_C_APP_DEL, 8, 0 },
		{ MSG_REPLY_ITEM, 8, 0 }, { MSG_APP_SYNC, 8, 0 }, { MSG_C_ADOPT, 8, 0 },
		{ MSG_C_ADOPT_APP, 56, 3 }, { MSG_C_ADOPT_END, 152, 0 },
	};
	struct proto_hdr h;
	int sv[2], fds[PROTO_MAX_FDS];
	int before = count_fds();

	sockpair(sv);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		size_t len = build_msg(msg, PROTO_MAGIC, PROTO_VERSION, good[i].type,
				       (size_t)good[i].blen, 0);

		((struct proto_hdr *)(void *)msg)->size = (uint32_t)len;
		raw_send(sv[0], msg, len, good[i].nfds);
		ck_assert_int_eq(proto_body_min(good[i].type) <= good[i].blen, 1);
		ck_assert_int_eq(proto_nfds(good[i].type), good[i].nfds);
		ck_assert_msg(proto_recv(sv[1], buf, &h, fds, 0) == good[i].blen, "type %u",
			      good[i].type);
		ck_assert_uint_eq(h.type, good[i].type);
		for (int j = 0; j < good[i].nfds; j++) {
			ck_assert_int_ge(fds[j], 0);
			close(fds[j]);
		}
	}
	close(sv[0]);
	close(sv[1]);
	ck_assert_int_eq(count_fds(), before);
}
END_TEST

/*
 * A peer that exits with our messages unread: its own messages, descriptors
 * included, are still read in order, then the end of the connection.
 */
START_TEST(test_recv_after_peer_reset)
{
	static char buf[PROTO_MAX_MSG];
	struct msg_segment seg;
	struct proto_hdr h;
	int sv[2], fds[PROTO_MAX_FDS], fd = memfd_with("last segment");
	int before;

	sockpair(sv);
	before = count_fds();
	memset(&seg, 0, sizeof(seg));
	seg.seg_index = 9;
	ck_assert_int_eq(proto_send(sv[0], MSG_REPLY, 0, NULL, 0, NULL, 0), 0);	/* unread */
	ck_assert_int_eq(proto_send(sv[1], MSG_APP_SYNC, 0, "12345678", 8, NULL, 0), 0);
	ck_assert_int_eq(proto_send(sv[1], MSG_APP_SEGMENT, 0, &seg, sizeof(seg), &fd, 1), 0);
	close(sv[1]);
	close(fd);
	ck_assert_int_eq(proto_recv(sv[0], buf, &h, fds, MSG_DONTWAIT), 8);
	ck_assert_uint_eq(h.type, MSG_APP_SYNC);
	ck_assert_int_eq(proto_recv(sv[0], buf, &h, fds, MSG_DONTWAIT), sizeof(seg));
	ck_assert_uint_eq(h.type, MSG_APP_SEGMENT);
	ck_assert_uint_eq(((struct msg_segment *)(void *)buf)->seg_index, 9);
	check_memfd(fds[0], "last segment");
	close(fds[0]);
	ck_assert_int_eq(proto_recv(sv[0], buf, &h, fds, MSG_DONTWAIT), -ECONNRESET);
	close(sv[0]);
	ck_assert_int_eq(count_fds(), before - 3);
}
END_TEST

static Suite *proto_suite(void)
{
	Suite *s = suite_create("proto");
	TCase *tc = tcase_create("events");
	TCase *tm = tcase_create("messages");

	tcase_add_test(tc, test_event_roundtrip);
	tcase_add_test(tc, test_event_wire_layout);
	tcase_add_test(tc, test_event_encode_limits);
	tcase_add_test(tc, test_event_decode_truncated);
	tcase_add_test(tc, test_event_decode_names);
	tcase_add_test(tc, test_event_decode_fields);
	tcase_add_test(tc, test_event_decode_types);
	tcase_add_test(tc, test_cmd_decode);
	tcase_add_test(tc, test_cmd_encode);
	tcase_add_test(tc, test_name_rules);
	tcase_add_test(tc, test_item_decode);
	suite_add_tcase(s, tc);
	tcase_add_test(tm, test_send_recv);
	tcase_add_loop_test(tm, test_recv_rejects, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_loop_test(tm, test_recv_empty_with_fds, 0, 2);
	tcase_add_test(tm, test_recv_raw_good);
	tcase_add_test(tm, test_recv_after_peer_reset);
	suite_add_tcase(s, tm);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(proto_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
