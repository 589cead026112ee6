/*
 * The recorded answers every client library checks (clients/testdata/answers.json,
 * named by LICENSING_ANSWERS_FILE): each case through the functions live answers
 * and kept tokens go through, judged at the case's own time.
 */
#include <stdlib.h>

#include "../src/internal.h"
#include "harness.h"

static cJSON *load_cases(void) {
  const char *path = getenv("LICENSING_ANSWERS_FILE");
  char *text = path == NULL ? NULL : read_file(path);
  cJSON *cases = text == NULL ? NULL : cJSON_Parse(text);
  free(text);
  return cases;
}

static const char *string_of(const cJSON *object, const char *name) {
  const cJSON *member = cJSON_GetObjectItemCaseSensitive(object, name);
  return cJSON_IsString(member) ? member->valuestring : NULL;
}

/* What the library made of one answer: "ok:<message>", "refused:<code>" or "code:<code>". */
static char *decide_answer(const lc_pinned *pinned, const cJSON *vector) {
  const cJSON *request = cJSON_GetObjectItemCaseSensitive(vector, "request");
  const cJSON *answer = cJSON_GetObjectItemCaseSensitive(vector, "answer");
  const cJSON *headers = cJSON_GetObjectItemCaseSensitive(answer, "headers");
  const char *body = string_of(answer, "body");
  lc_signature_fields fields = {string_of(headers, "content-digest"), string_of(headers, "signature-input"), string_of(headers, "signature"), 0};
  lc_answer accepted;
  lc_error error = {0};
  int status = lc__verify_answer(pinned, (long)cJSON_GetObjectItemCaseSensitive(answer, "status")->valuedouble, &fields, (const unsigned char *)body,
                                 strlen(body), string_of(request, "nonce"), string_of(request, "content_digest"), string_of(request, "license"), &accepted,
                                 &error);
  char *decided = status == LC_OK ? lc__format("ok:%s", accepted.message)
                  : status == LC_ERR_REFUSED ? lc__format("refused:%s", error.code)
                                             : lc__format("code:%s", error.code);
  lc__answer_free(&accepted);
  lc__error_clear(&error);
  return decided;
}

static char *expected_answer(const cJSON *expect) {
  if (string_of(expect, "message") != NULL) return lc__format("ok:%s", string_of(expect, "message"));
  if (string_of(expect, "refused") != NULL) return lc__format("refused:%s", string_of(expect, "refused"));
  return lc__format("code:%s", string_of(expect, "code"));
}

static void every_recorded_answer_is_decided_as_the_case_expects(void) {
  cJSON *cases = load_cases();
  CHECK(cases != NULL);
  lc_pinned pinned;
  int pinned_ok = lc__pin_key(&pinned, string_of(cases, "public_key_pem"));
  int failures = 0, decided = 0;
  const cJSON *vector;
  const cJSON *answers = pinned_ok ? cJSON_GetObjectItemCaseSensitive(cases, "answers") : NULL;
  cJSON_ArrayForEach(vector, answers) {
    char *got = decide_answer(&pinned, vector);
    char *wanted = expected_answer(cJSON_GetObjectItemCaseSensitive(vector, "expect"));
    int same = strcmp(got, wanted) == 0;
    printf("    answer %s: %s%s%s\n", string_of(vector, "name"), got, same ? "" : ", expected ", same ? "" : wanted);
    failures += !same;
    decided++;
    free(got);
    free(wanted);
  }
  if (pinned_ok) lc__pinned_free(&pinned);
  cJSON_Delete(cases);
  CHECK(pinned_ok);
  CHECK(decided >= 10);
  CHECK(failures == 0);
}

static void every_recorded_token_is_decided_as_the_case_expects(void) {
  cJSON *cases = load_cases();
  CHECK(cases != NULL);
  lc_pinned pinned;
  int pinned_ok = lc__pin_key(&pinned, string_of(cases, "public_key_pem"));
  int failures = 0, decided = 0;
  const cJSON *vector;
  const cJSON *tokens = pinned_ok ? cJSON_GetObjectItemCaseSensitive(cases, "tokens") : NULL;
  cJSON_ArrayForEach(vector, tokens) {
    lc_token_expect expect = {string_of(vector, "app_id"), string_of(vector, "license"), string_of(vector, "hwid"), string_of(vector, "nonce"),
                              (int64_t)cJSON_GetObjectItemCaseSensitive(vector, "now")->valuedouble};
    cJSON *claims = NULL;
    lc_error error = {0};
    int status = lc__verify_token(&pinned, string_of(vector, "token"), &expect, &claims, &error);
    const char *wanted = string_of(cJSON_GetObjectItemCaseSensitive(vector, "expect"), "code");
    const char *sub = string_of(claims, "sub");
    int same = wanted == NULL ? status == LC_OK && sub != NULL && expect.license != NULL && strcmp(sub, expect.license) == 0
                              : status != LC_OK && strcmp(error.code, wanted) == 0;
    printf("    token %s: %s%s%s\n", string_of(vector, "name"), status == LC_OK ? "ok" : error.code, same ? "" : ", expected ",
           same ? "" : (wanted ? wanted : "ok"));
    failures += !same;
    decided++;
    cJSON_Delete(claims);
    lc__error_clear(&error);
  }
  if (pinned_ok) lc__pinned_free(&pinned);
  cJSON_Delete(cases);
  CHECK(pinned_ok);
  CHECK(decided >= 10);
  CHECK(failures == 0);
}

const test_case recorded_tests[] = {
    {"recorded: every recorded answer is decided as the case expects", every_recorded_answer_is_decided_as_the_case_expects},
    {"recorded: every recorded token is decided as the case expects", every_recorded_token_is_decided_as_the_case_expects},
    {NULL, NULL}};
