/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny TAP producer: "ok N - what" / "not ok N - what" per check, then
 * the plan and a final "N passed, M failed" line.
 */
#ifndef MINIVMM_TAP_H
#define MINIVMM_TAP_H

#include <stdio.h>

void tap__ok(int cond, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void tap__diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define ok(cond, ...)	tap__ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define diag(...)	tap__diag(__VA_ARGS__)

/* A scratch directory for file tests, made by test-main.c. */
extern char tap_tmpdir[];

/* Helpers of several tests, in test-main.c. */
struct ioport_bus;

/* How often @needle occurs in @haystack, overlaps included. */
int tap_count(const char *haystack, const char *needle);
/* The file @name of tap_tmpdir into @buf (NUL-terminated), "" if none. */
void tap_slurp(const char *name, char *buf, size_t len);
/* A guest's IN or OUT of @size bytes at @port on @io, from vCPU 0. */
unsigned int tap_in_port(struct ioport_bus *io, unsigned short port,
			 unsigned int size);
void tap_out_port(struct ioport_bus *io, unsigned short port,
		  unsigned int size, unsigned int v);

void test_options(void);
void test_payload(void);
void test_stats(void);
void test_report(void);
void test_fake(void);
void test_latency(void);
void test_kvm_ioctl(void);
void test_linux(void);
void test_serial(void);
void test_pci(void);

#endif /* MINIVMM_TAP_H */
