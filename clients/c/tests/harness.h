/*
 * The test programs' own small harness and their access to the service under
 * test (test/clients/c.test.ts starts it: the local server, the steered proxy,
 * an owner), read from the environment as the Python client's suite reads it.
 */
#ifndef LICENSING_TEST_HARNESS_H
#define LICENSING_TEST_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "licensing.h"

/* ---- assertions: a failed one records where and returns from the test ---- */

void test_failed(const char *file, int line, const char *what);

#define CHECK(condition)                                            \
  do {                                                              \
    if (!(condition)) {                                             \
      test_failed(__FILE__, __LINE__, #condition);                  \
      return;                                                       \
    }                                                               \
  } while (0)

#define CHECK_STR(actual, expected)                                                             \
  do {                                                                                          \
    const char *actual_ = (actual), *expected_ = (expected);                                    \
    if (actual_ == NULL || expected_ == NULL || strcmp(actual_, expected_) != 0) {              \
      char what_[512];                                                                          \
      snprintf(what_, sizeof what_, "%s is \"%s\", expected \"%s\"", #actual, actual_ ? actual_ : "(null)", \
               expected_ ? expected_ : "(null)");                                               \
      test_failed(__FILE__, __LINE__, what_);                                                   \
      return;                                                                                   \
    }                                                                                           \
  } while (0)

/* The call failed with this code (and returned non-zero with *result NULL). */
#define CHECK_CODE(client, status, result, code)  \
  do {                                            \
    CHECK((status) != LC_OK);                     \
    CHECK((result) == NULL);                      \
    CHECK_STR(lc_last_error_code(client), code);  \
  } while (0)

typedef struct test_case {
  const char *name;
  void (*run)(void);
} test_case;

/* ---- the service ---- */

extern const char *SERVICE_URL;
extern const char *PROXY_URL;
extern const char *APP_ID;
extern const char *PUBLIC_JWK;
extern const char *PUBLIC_KEY_PEM;

/* A management call as the owner: the answer's data (the caller deletes it), or NULL when it failed (printed). */
cJSON *manage(const char *path, const char *body_json);
/* A new 30-day license of the suite's subscription; extra: more /license/create fields as JSON members ("" for none). Caller frees. */
char *new_license(const char *extra);
char *floating_license(int seats);
/* The proxy's mode for the next `times` requests (0: all until the next mode); license: the relayed license, or NULL. */
void proxy_mode(const char *mode, int times, const char *license);
/* The request bodies the proxy forwarded since its mode was last set (caller deletes). */
cJSON *proxy_log(void);
void set_server(int running);

/* A client of the suite's application: url NULL means the service itself; public_key NULL the JWK. Fails the test when NULL. */
lc_client *client_for(const char *url, const char *public_key, const char *state_dir, long timeout_ms);
/* A fresh empty folder for one test's state (removed at the end of the run). */
const char *state_folder(void);
/* A clock that tests move by hand (clock_data of lc_options). */
typedef struct fake_clock {
  int64_t now_ms;
} fake_clock;
int64_t fake_clock_now(void *clock_data);
void fake_clock_start(fake_clock *clock);
int wait_for(int (*condition)(void *), void *context, int seconds);
char *read_file(const char *path);
int write_file(const char *path, const char *text);

/* ---- the suites ---- */

extern const test_case unit_tests[];
/* Frees what the unit tests made once for all of them. */
void unit_tests_done(void);
extern const test_case check_tests[];
extern const test_case tampering_tests[];
extern const test_case offline_tests[];
extern const test_case floating_tests[];
extern const test_case recorded_tests[];

#endif
