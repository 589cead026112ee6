#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

const char *SERVICE_URL;
const char *PROXY_URL;
const char *APP_ID;
const char *PUBLIC_JWK;
const char *PUBLIC_KEY_PEM;
static const char *API_KEY;

static int current_failed;
static char work_dir[256];
static int folders;

void test_failed(const char *file, int line, const char *what) {
  current_failed = 1;
  printf("    %s:%d: %s\n", file, line, what);
}

typedef struct buffer {
  char *bytes;
  size_t length;
} buffer;

static size_t collect(char *bytes, size_t size, size_t count, void *context) {
  buffer *into = context;
  char *grown = realloc(into->bytes, into->length + size * count + 1);
  if (grown == NULL) return 0;
  memcpy(grown + into->length, bytes, size * count);
  into->bytes = grown;
  into->length += size * count;
  into->bytes[into->length] = '\0';
  return size * count;
}

/* POSTs JSON; the status (0 when no answer) and the parsed answer in *answer (may be NULL). */
static long post(const char *url, const char *body, const char *api_key, cJSON **answer) {
  CURL *curl = curl_easy_init();
  struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
  char key_header[256];
  if (api_key != NULL) {
    snprintf(key_header, sizeof key_header, "x-api-key: %s", api_key);
    headers = curl_slist_append(headers, key_header);
  }
  buffer received = {0};
  curl_easy_setopt(curl, CURLOPT_URL, url);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &received);
  long status = 0;
  if (curl_easy_perform(curl) == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (answer != NULL) *answer = received.bytes == NULL ? NULL : cJSON_Parse(received.bytes);
  free(received.bytes);
  return status;
}

cJSON *manage(const char *path, const char *body_json) {
  char url[512];
  snprintf(url, sizeof url, "%s%s", SERVICE_URL, path);
  cJSON *answer = NULL;
  long status = post(url, body_json, API_KEY, &answer);
  if (status != 200) {
    char *text = answer == NULL ? NULL : cJSON_PrintUnformatted(answer);
    printf("    %s answered %ld: %s\n", path, status, text ? text : "");
    free(text);
    cJSON_Delete(answer);
    return NULL;
  }
  cJSON *data = cJSON_DetachItemFromObjectCaseSensitive(answer, "data");
  cJSON_Delete(answer);
  return data;
}

static char subscription_id[64];

char *new_license(const char *extra) {
  if (!subscription_id[0]) {
    char body[256];
    snprintf(body, sizeof body,
             "{\"app_id\":\"%s\",\"name\":\"C client tests\",\"level\":3,\"usage_limits\":{\"exports\":{\"limit\":5,\"period\":\"none\"}}}", APP_ID);
    cJSON *created = manage("/subscription/create", body);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(created, "subscription_id");
    if (cJSON_IsString(id)) snprintf(subscription_id, sizeof subscription_id, "%s", id->valuestring);
    cJSON_Delete(created);
  }
  char body[1024];
  snprintf(body, sizeof body, "{\"app_id\":\"%s\",\"subscription_id\":\"%s\",\"duration_unit\":\"days\",\"duration_value\":30%s%s}", APP_ID,
           subscription_id, extra[0] ? "," : "", extra);
  cJSON *license = manage("/license/create", body);
  const cJSON *key = cJSON_GetObjectItemCaseSensitive(license, "key");
  char *copy = cJSON_IsString(key) ? strdup(key->valuestring) : NULL;
  cJSON_Delete(license);
  return copy;
}

char *floating_license(int seats) {
  char extra[128];
  snprintf(extra, sizeof extra, "\"hwid_lock\":true,\"max_devices\":%d,\"lease_seconds\":60", seats);
  return new_license(extra);
}

static void control(const char *path, const char *body, cJSON **answer) {
  char url[512];
  snprintf(url, sizeof url, "%s/__control/%s", PROXY_URL, path);
  if (post(url, body, NULL, answer) != 200) printf("    the proxy's %s failed\n", path);
}

void proxy_mode(const char *mode, int times, const char *license) {
  char body[512];
  int length = snprintf(body, sizeof body, "{\"mode\":\"%s\"", mode);
  if (times > 0) length += snprintf(body + length, sizeof body - (size_t)length, ",\"times\":%d", times);
  if (license != NULL) length += snprintf(body + length, sizeof body - (size_t)length, ",\"license\":\"%s\"", license);
  snprintf(body + length, sizeof body - (size_t)length, "}");
  control("mode", body, NULL);
}

cJSON *proxy_log(void) {
  cJSON *answer = NULL;
  control("log", "{}", &answer);
  cJSON *log = cJSON_DetachItemFromObjectCaseSensitive(answer, "log");
  cJSON_Delete(answer);
  return log;
}

void set_server(int running) { control("server", running ? "{\"running\":true}" : "{\"running\":false}", NULL); }

lc_client *client_for(const char *url, const char *public_key, const char *state_dir, long timeout_ms) {
  lc_options options = {url ? url : SERVICE_URL, APP_ID, public_key ? public_key : PUBLIC_JWK, state_dir, timeout_ms, NULL, NULL};
  return lc_client_new(&options);
}

const char *state_folder(void) {
  static char path[512];
  snprintf(path, sizeof path, "%s/state-%d", work_dir, ++folders);
  return path;
}

/* Read atomically: a heartbeat's thread reads the clock a test moves. */
int64_t fake_clock_now(void *clock_data) { return __atomic_load_n(&((fake_clock *)clock_data)->now_ms, __ATOMIC_SEQ_CST); }

void fake_clock_start(fake_clock *clock) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  clock->now_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

int wait_for(int (*condition)(void *), void *context, int seconds) {
  for (int tenths = 0; tenths < seconds * 20; tenths++) {
    if (condition(context)) return 1;
    struct timespec pause = {0, 50000000L};
    nanosleep(&pause, NULL);
  }
  return condition(context);
}

char *read_file(const char *path) {
  FILE *file = fopen(path, "rb");
  if (file == NULL) return NULL;
  buffer text = {0};
  char chunk[4096];
  size_t length;
  while ((length = fread(chunk, 1, sizeof chunk, file)) > 0) collect(chunk, 1, length, &text);
  fclose(file);
  return text.bytes != NULL ? text.bytes : strdup("");
}

int write_file(const char *path, const char *text) {
  FILE *file = fopen(path, "wb");
  if (file == NULL) return 0;
  int ok = fputs(text, file) >= 0;
  return fclose(file) == 0 && ok;
}

static int matches(const char *name, int argc, char **argv) {
  if (argc < 2) return 1;
  for (int i = 1; i < argc; i++)
    if (strstr(name, argv[i]) != NULL) return 1;
  return 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  SERVICE_URL = getenv("LICENSING_URL");
  PROXY_URL = getenv("LICENSING_PROXY_URL");
  APP_ID = getenv("LICENSING_APP_ID");
  API_KEY = getenv("LICENSING_API_KEY");
  PUBLIC_JWK = getenv("LICENSING_PUBLIC_JWK");
  PUBLIC_KEY_PEM = getenv("LICENSING_PUBLIC_KEY_PEM");
  if (!SERVICE_URL || !PROXY_URL || !APP_ID || !API_KEY || !PUBLIC_JWK || !PUBLIC_KEY_PEM) {
    fprintf(stderr, "run by test/clients/c.test.ts, which sets LICENSING_URL, LICENSING_PROXY_URL, LICENSING_APP_ID, ...\n");
    return 2;
  }
  const char *temporary = getenv("TMPDIR");
  snprintf(work_dir, sizeof work_dir, "%s/licensing-c-tests-XXXXXX", temporary ? temporary : "/tmp");
  if (mkdtemp(work_dir) == NULL) return 2;
  curl_global_init(CURL_GLOBAL_DEFAULT);

  const test_case *suites[] = {unit_tests, recorded_tests, check_tests, tampering_tests, offline_tests, floating_tests};
  int passed = 0, failed = 0;
  for (size_t s = 0; s < sizeof suites / sizeof *suites; s++) {
    for (const test_case *test = suites[s]; test->name != NULL; test++) {
      if (!matches(test->name, argc, argv)) continue;
      proxy_mode("pass", 0, NULL);
      current_failed = 0;
      test->run();
      proxy_mode("pass", 0, NULL);
      set_server(1);
      printf("%s - %s\n", current_failed ? "not ok" : "ok", test->name);
      if (current_failed) failed++;
      else passed++;
    }
  }
  unit_tests_done();
  char command[300];
  snprintf(command, sizeof command, "rm -rf '%s'", work_dir);
  if (system(command) != 0) fprintf(stderr, "could not remove %s\n", work_dir);
  curl_global_cleanup();
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}
