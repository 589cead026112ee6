/*
 * What the client keeps in its state folder besides the offline token: the
 * license file (license.lic), the activation requests waiting for their file
 * (activation-requests.json) and the latest time seen (clock.json). The files
 * and their formats are those of the TypeScript and Python libraries, so one
 * program's state folder can be read by another's library.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#if defined(_WIN32)
#include <direct.h>
#include <io.h>
#include <windows.h>
#endif

#include "internal.h"

/* How far the clock may be behind the latest time seen before a stored token or file is refused: time zones, a
 * dead clock battery put right by hand. */
#define CLOCK_SLACK_SECONDS 86400
/* Requests made again and again without their file arriving (a lost QR code, a second try) are kept, the oldest
 * dropped past this many. */
#define KEPT_REQUESTS 10

/* The file system's calls where Windows names them otherwise, or replaces a file otherwise (rename does not replace there). */
#if defined(_WIN32)
#define make_folder(path) _mkdir(path)
#define sync_file(descriptor) _commit(descriptor)
#define replace_file(from, to) (MoveFileExA((from), (to), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) ? 0 : -1)
#define is_separator(c) ((c) == '/' || (c) == '\\')
#else
#define make_folder(path) mkdir((path), 0700)
#define sync_file(descriptor) fsync(descriptor)
#define replace_file(from, to) rename((from), (to))
#define is_separator(c) ((c) == '/')
#endif

static int make_folders(const char *path) {
  char *copy = lc__strdup(path);
  if (copy == NULL) return 0;
  for (char *separator = copy + 1; *separator; separator++) {
    if (!is_separator(*separator)) continue;
    char kept = *separator;
    *separator = '\0';
    if (make_folder(copy) != 0 && errno != EEXIST) {
      free(copy);
      return 0;
    }
    *separator = kept;
  }
  int ok = make_folder(copy) == 0 || errno == EEXIST;
  free(copy);
  return ok;
}

int lc__replace_file(const char *folder, const char *path, const char *text) {
  char *temporary = lc__format("%s/.state-XXXXXX", folder);
  int ok = temporary != NULL && make_folders(folder);
  int descriptor = ok ? mkstemp(temporary) : -1; /* mode 0600: the files hold license keys */
  if (descriptor >= 0) {
    size_t length = strlen(text), written = 0;
    while (written < length) {
      ssize_t wrote = write(descriptor, text + written, length - written);
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote <= 0) break;
      written += (size_t)wrote;
    }
    ok = written == length && sync_file(descriptor) == 0;
    ok = close(descriptor) == 0 && ok;
    ok = ok && replace_file(temporary, path) == 0;
    if (!ok) unlink(temporary);
  } else {
    ok = 0;
  }
  free(temporary);
  return ok;
}

char *lc__read_text(const char *path, size_t limit) {
  FILE *file = fopen(path, "rb");
  if (file == NULL) return NULL;
  char *text = malloc(limit + 1);
  size_t length = text == NULL ? 0 : fread(text, 1, limit, file);
  /* A file larger than any this library writes is not its own: it is read as none. */
  int whole = text != NULL && fgetc(file) == EOF && !ferror(file);
  fclose(file);
  if (!whole) {
    free(text);
    return NULL;
  }
  text[length] = '\0';
  return text;
}

static cJSON *read_json(const char *path) {
  char *text = lc__read_text(path, 1 << 20);
  cJSON *parsed = text == NULL ? NULL : cJSON_Parse(text);
  free(text);
  return parsed;
}

/* ---- the license file ---------------------------------------------------------------------- */

static char *state_path(const lc_client *client, const char *name) { return lc__format("%s/%s", client->state_dir, name); }

char *lc__stored_license_file(lc_client *client) {
  if (client->state_dir == NULL) return NULL;
  char *path = state_path(client, "license.lic");
  pthread_mutex_lock(&client->lock);
  char *text = path == NULL ? NULL : lc__read_text(path, 1 << 20);
  pthread_mutex_unlock(&client->lock);
  free(path);
  char *trimmed = text == NULL ? NULL : lc__trim(text);
  free(text);
  if (trimmed != NULL && trimmed[0] == '\0') {
    free(trimmed);
    return NULL;
  }
  return trimmed;
}

int lc__store_license_file(lc_client *client, const char *compact) {
  char *path = state_path(client, "license.lic");
  char *text = lc__format("%s\n", compact);
  pthread_mutex_lock(&client->lock);
  int ok = path != NULL && text != NULL && lc__replace_file(client->state_dir, path, text);
  pthread_mutex_unlock(&client->lock);
  free(path);
  free(text);
  return ok;
}

void lc__drop_license_file(lc_client *client, const char *compact) {
  char *path = state_path(client, "license.lic");
  if (path == NULL) return;
  pthread_mutex_lock(&client->lock);
  /* Only if it is still this file: a newer one loaded meanwhile stays. */
  char *text = lc__read_text(path, 1 << 20);
  char *stored = text == NULL ? NULL : lc__trim(text);
  if (stored != NULL && strcmp(stored, compact) == 0) unlink(path);
  pthread_mutex_unlock(&client->lock);
  free(stored);
  free(text);
  free(path);
}

/* ---- activation requests waiting for their file -------------------------------------------- */

static int is_pending(const cJSON *request) {
  static const char *const fields[] = {"license", "hwid", "nonce"};
  if (!cJSON_IsObject(request)) return 0;
  for (size_t i = 0; i < 3; i++)
    if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(request, fields[i]))) return 0;
  return 1;
}

/* The kept requests, oldest first, as an array of {license, hwid, nonce}; anything else in the file is left out. Call with the lock held. */
static cJSON *pending_locked(const char *path) {
  cJSON *kept = read_json(path);
  cJSON *pending = cJSON_CreateArray();
  const cJSON *request;
  if (pending != NULL && cJSON_IsArray(kept)) cJSON_ArrayForEach(request, kept) {
      cJSON *entry = is_pending(request) ? cJSON_CreateObject() : NULL;
      if (entry == NULL) continue;
      static const char *const fields[] = {"license", "hwid", "nonce"};
      for (size_t i = 0; i < 3; i++) cJSON_AddStringToObject(entry, fields[i], cJSON_GetObjectItemCaseSensitive(request, fields[i])->valuestring);
      cJSON_AddItemToArray(pending, entry);
    }
  cJSON_Delete(kept);
  return pending;
}

cJSON *lc__pending_requests(lc_client *client) {
  char *path = state_path(client, "activation-requests.json");
  if (path == NULL) return NULL;
  pthread_mutex_lock(&client->lock);
  cJSON *pending = pending_locked(path);
  pthread_mutex_unlock(&client->lock);
  free(path);
  return pending;
}

/* Adds a request ({license, hwid, nonce}) or, with `nonce` NULL, forgets every request of this license and device. */
static int change_requests(lc_client *client, const char *license, const char *hwid, const char *nonce) {
  char *path = state_path(client, "activation-requests.json");
  if (path == NULL) return 0;
  pthread_mutex_lock(&client->lock);
  cJSON *pending = pending_locked(path);
  int ok = pending != NULL;
  if (ok && nonce != NULL) {
    cJSON *entry = cJSON_CreateObject();
    ok = entry != NULL && cJSON_AddStringToObject(entry, "license", license) != NULL && cJSON_AddStringToObject(entry, "hwid", hwid) != NULL &&
         cJSON_AddStringToObject(entry, "nonce", nonce) != NULL;
    if (ok) cJSON_AddItemToArray(pending, entry);
    else cJSON_Delete(entry);
    while (ok && cJSON_GetArraySize(pending) > KEPT_REQUESTS) cJSON_DeleteItemFromArray(pending, 0);
  } else if (ok) {
    for (int i = cJSON_GetArraySize(pending) - 1; i >= 0; i--) {
      const cJSON *request = cJSON_GetArrayItem(pending, i);
      if (strcmp(cJSON_GetObjectItemCaseSensitive(request, "license")->valuestring, license) == 0 &&
          strcmp(cJSON_GetObjectItemCaseSensitive(request, "hwid")->valuestring, hwid) == 0)
        cJSON_DeleteItemFromArray(pending, i);
    }
  }
  char *text = ok ? cJSON_PrintUnformatted(pending) : NULL;
  ok = text != NULL && lc__replace_file(client->state_dir, path, text);
  pthread_mutex_unlock(&client->lock);
  free(text);
  cJSON_Delete(pending);
  free(path);
  return ok;
}

int lc__keep_request(lc_client *client, const char *license, const char *hwid, const char *nonce) { return change_requests(client, license, hwid, nonce); }

int lc__forget_requests(lc_client *client, const char *license, const char *hwid) { return change_requests(client, license, hwid, NULL); }

/* ---- the latest time seen ------------------------------------------------------------------- */

static void write_clock(lc_client *client, const char *path, double seconds) {
  cJSON *record = cJSON_CreateObject();
  char *text = record != NULL && cJSON_AddNumberToObject(record, "seen", seconds) != NULL ? cJSON_PrintUnformatted(record) : NULL;
  /* A folder that cannot be written costs the clock's record, not the call that saw the time. */
  if (text != NULL) (void)lc__replace_file(client->state_dir, path, text);
  free(text);
  cJSON_Delete(record);
}

int lc__judge_clock(lc_client *client, double now, lc_error *error) {
  if (client->state_dir == NULL) return LC_OK;
  char *path = state_path(client, "clock.json");
  if (path == NULL) return lc__out_of_memory(error);
  pthread_mutex_lock(&client->lock);
  cJSON *kept = read_json(path);
  const cJSON *seen = cJSON_GetObjectItemCaseSensitive(kept, "seen");
  int known = cJSON_IsNumber(seen);
  double latest = known ? seen->valuedouble : 0;
  int status = LC_OK;
  if (known && now < latest - CLOCK_SLACK_SECONDS) {
    char at[40];
    lc__format_instant((int64_t)latest, at, sizeof at);
    lc__fail(error, LC_ERR_CLOCK_MOVED_BACK, "CLOCK_MOVED_BACK", "the computer clock is more than a day behind a time this program has already seen");
    error->data_json = lc__format("{\"latest_seen_at\":\"%s\"}", at);
    status = error->data_json == NULL ? lc__out_of_memory(error) : LC_ERR_CLOCK_MOVED_BACK;
  } else if (!known || now > latest) {
    write_clock(client, path, now);
  }
  pthread_mutex_unlock(&client->lock);
  cJSON_Delete(kept);
  free(path);
  return status;
}

void lc__saw_service_time(lc_client *client, double seconds) {
  if (client->state_dir == NULL) return;
  char *path = state_path(client, "clock.json");
  if (path == NULL) return;
  /* Even when earlier than the time kept: a clock once set ahead and then put right is forgiven at the next answer. */
  pthread_mutex_lock(&client->lock);
  write_clock(client, path, seconds);
  pthread_mutex_unlock(&client->lock);
  free(path);
}
