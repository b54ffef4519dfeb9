/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - the libFuzzer entry point, implemented by each fuzz target and
 * called either by libFuzzer (make fuzz) or by driver.c (make check).
 */
#ifndef SHMTRACE_TESTS_FUZZ_H
#define SHMTRACE_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A target of a text format may define fuzz_tokens (NULL-terminated):
 * driver.c then splices them into its inputs, and leaves alone the message
 * header fields that it otherwise mutates or keeps right.
 */
extern const char *const fuzz_tokens[] __attribute__((weak));

#endif /* SHMTRACE_TESTS_FUZZ_H */
