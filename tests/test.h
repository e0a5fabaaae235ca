/* test.h - a minimal unit-test harness shared by every C test program.
 *   TEST(name) { ... CHECK(cond); CHECK_EQ_INT(a, b); CHECK_STR(a, b); }
 *   int main(void) { RUN(name); ...; return TEST_SUMMARY(); }
 * A failing CHECK prints file:line and the expression and marks the test
 * failed; the program exits 1 if any test failed. */
#ifndef RAVEL_TEST_H
#define RAVEL_TEST_H

#include <stdio.h>
#include <string.h>

static int test_failed_, tests_run_, tests_bad_;

#define TEST(name) static void name(void)
#define CHECK(c)                                                              \
    do {                                                                      \
        if (!(c)) {                                                           \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); \
            test_failed_ = 1;                                                 \
        }                                                                     \
    } while (0)
#define CHECK_EQ_INT(a, b)                                                    \
    do {                                                                      \
        long long a_ = (long long)(a), b_ = (long long)(b);                   \
        if (a_ != b_) {                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld vs %lld)\n", \
                    __FILE__, __LINE__, #a, #b, a_, b_);                      \
            test_failed_ = 1;                                                 \
        }                                                                     \
    } while (0)
#define CHECK_STR(a, b)                                                       \
    do {                                                                      \
        const char *a_ = (a), *b_ = (b);                                      \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s\n  got:  %s\n  want: %s\n", \
                    __FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
            test_failed_ = 1;                                                 \
        }                                                                     \
    } while (0)
#define RUN(name)                                                             \
    do {                                                                      \
        test_failed_ = 0;                                                     \
        name();                                                               \
        tests_run_++;                                                         \
        if (test_failed_) {                                                   \
            tests_bad_++;                                                     \
            fprintf(stderr, "FAIL %s\n", #name);                              \
        }                                                                     \
    } while (0)
#define TEST_SUMMARY()                                                        \
    (printf("%d passed, %d failed\n", tests_run_ - tests_bad_, tests_bad_), tests_bad_ != 0)

#endif
