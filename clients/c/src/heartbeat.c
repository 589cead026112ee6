/* Floating seats kept by a heartbeat on a thread of its own (licensing.h: lc_heartbeat_start). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

enum { RUNNING, LOST, STOPPED };

/* Waits go by the monotonic clock, so setting the computer's clock neither hastens nor delays a renewal;
 * macOS's and MinGW-w64's POSIX threads cannot time a condition variable by it, and wait there by the real-time clock. */
#if defined(__APPLE__) || defined(_WIN32)
#define WAIT_CLOCK CLOCK_REALTIME
#else
#define WAIT_CLOCK CLOCK_MONOTONIC
#endif

/* The shortest wait between two renewals, so a lease already at its end is not renewed in a tight loop. */
#define SHORTEST_WAIT_MS 1000

struct lc_heartbeat {
  lc_client *client;
  lc_credentials credentials;
  char *owned[4];
  lc_lost_fn on_lost;
  void *user_data;
  int64_t interval_ms;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  int state;
  int renew_requested;
  int renewing;
  unsigned long generation;
  /* The lease as of the last renewal: its end by the service's clock, its length, and when (the client's clock) it was renewed. */
  int64_t lease_end;
  int64_t lease_ms;
  int64_t renewed_at;
  /* When the next renewal is due, on the monotonic clock. */
  int64_t next_at;
  int lost_status;
  char *lost_code;
};

/*
 * The lease an answer gives: its end as the service wrote it, and its length by
 * the service's own clock (from this authentication to the end), which the
 * heartbeat measures out on the computer's clock: a computer whose clock is off
 * still renews in time.
 */
static int lease_of(const lc_result *result, int64_t *end, int64_t *length) {
  int64_t until = lc__parse_instant(lc_result_string(result, "lease_expires_at"));
  int64_t from = lc__parse_instant(lc_result_string(result, "last_login"));
  if (until < 0 || from < 0) return 0;
  *end = until;
  *length = until - from;
  return 1;
}

static void schedule(lc_heartbeat *heartbeat) {
  double delay;
  if (heartbeat->interval_ms > 0) {
    delay = (double)heartbeat->interval_ms * (0.85 + lc__random_unit() * 0.3);
  } else {
    int64_t left = heartbeat->lease_ms - (lc__now_ms(heartbeat->client) - heartbeat->renewed_at);
    /* Jitter spreads out many programs that started together. */
    delay = (double)left / 2 * (0.9 + lc__random_unit() * 0.2);
    if (delay < SHORTEST_WAIT_MS) delay = SHORTEST_WAIT_MS;
  }
  heartbeat->next_at = lc__monotonic_ms() + (int64_t)delay;
}

static void wait_until(lc_heartbeat *heartbeat, int64_t monotonic_ms) {
  int64_t left = monotonic_ms - lc__monotonic_ms();
  if (left <= 0) return;
  struct timespec deadline;
  clock_gettime(WAIT_CLOCK, &deadline);
  deadline.tv_sec += (time_t)(left / 1000);
  deadline.tv_nsec += (long)(left % 1000) * 1000000L;
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec += 1;
    deadline.tv_nsec -= 1000000000L;
  }
  pthread_cond_timedwait(&heartbeat->wake, &heartbeat->lock, &deadline);
}

/* Called with the lock held; releases it while on_lost runs. */
static void lose(lc_heartbeat *heartbeat, int status, const char *code, const char *data_json) {
  heartbeat->state = LOST;
  heartbeat->lost_status = status;
  heartbeat->lost_code = lc__strdup(code);
  pthread_cond_broadcast(&heartbeat->wake);
  pthread_mutex_unlock(&heartbeat->lock);
  if (heartbeat->on_lost != NULL) heartbeat->on_lost(heartbeat->user_data, code, data_json);
  pthread_mutex_lock(&heartbeat->lock);
}

static void *beat(void *argument) {
  lc_heartbeat *heartbeat = argument;
  pthread_mutex_lock(&heartbeat->lock);
  while (heartbeat->state == RUNNING) {
    if (!heartbeat->renew_requested && lc__monotonic_ms() < heartbeat->next_at) {
      wait_until(heartbeat, heartbeat->next_at);
      continue;
    }
    heartbeat->renew_requested = 0;
    heartbeat->renewing = 1;
    pthread_mutex_unlock(&heartbeat->lock);
    lc_error error = {0};
    lc_result *result = NULL;
    lc__authenticate(heartbeat->client, &heartbeat->credentials, NULL, &result, &error);
    pthread_mutex_lock(&heartbeat->lock);
    heartbeat->renewing = 0;
    heartbeat->generation++;
    pthread_cond_broadcast(&heartbeat->wake);
    int64_t end = 0, length = 0;
    if (heartbeat->state != RUNNING) {
      /* Stopped meanwhile: nothing to report. */
    } else if (error.status == LC_OK && lease_of(result, &end, &length)) {
      heartbeat->lease_end = end;
      heartbeat->lease_ms = length;
      heartbeat->renewed_at = lc__now_ms(heartbeat->client);
      schedule(heartbeat);
    } else if (error.status == LC_OK) {
      lose(heartbeat, LC_ERR_REFUSED, "LICENSE_NOT_FLOATING", NULL);
    } else if (error.status == LC_ERR_NETWORK && lc__now_ms(heartbeat->client) - heartbeat->renewed_at < heartbeat->lease_ms) {
      /* The seat is this device's until its lease ends: keep trying until then. */
      schedule(heartbeat);
    } else {
      lose(heartbeat, error.status, error.code, error.data_json);
    }
    lc_result_free(result);
    lc__error_clear(&error);
  }
  pthread_mutex_unlock(&heartbeat->lock);
  return NULL;
}

static void heartbeat_free(lc_heartbeat *heartbeat) {
  for (int i = 0; i < 4; i++) free(heartbeat->owned[i]);
  free(heartbeat->lost_code);
  free(heartbeat);
}

static int copy_credentials(lc_heartbeat *heartbeat, const lc_credentials *credentials) {
  const char *from[4] = {credentials->license, credentials->username, credentials->password, credentials->hwid};
  for (int i = 0; i < 4; i++)
    if (from[i] != NULL && (heartbeat->owned[i] = lc__strdup(from[i])) == NULL) return 0;
  heartbeat->credentials = (lc_credentials){heartbeat->owned[0], heartbeat->owned[1], heartbeat->owned[2], heartbeat->owned[3]};
  return 1;
}

int lc_heartbeat_start(lc_client *client, const lc_credentials *credentials, const lc_heartbeat_options *options, lc_heartbeat **out) {
  if (client == NULL) return LC_ERR_INVALID_ARGUMENT;
  lc_error error = {0};
  if (out != NULL) *out = NULL;
  if (out == NULL || credentials == NULL || credentials->hwid == NULL) {
    lc__fail(&error, LC_ERR_INVALID_ARGUMENT, "INVALID_ARGUMENT", "credentials with the device's hwid and a place for the heartbeat are required");
    return lc__finish(client, &error);
  }
  lc_heartbeat *heartbeat = calloc(1, sizeof *heartbeat);
  if (heartbeat == NULL || !copy_credentials(heartbeat, credentials)) {
    if (heartbeat != NULL) heartbeat_free(heartbeat);
    lc__out_of_memory(&error);
    return lc__finish(client, &error);
  }
  heartbeat->client = client;
  if (options != NULL) {
    heartbeat->on_lost = options->on_lost;
    heartbeat->user_data = options->user_data;
    heartbeat->interval_ms = options->interval_ms;
  }
  lc_result *first = NULL;
  if (lc__authenticate(client, &heartbeat->credentials, NULL, &first, &error) == LC_OK) {
    if (!lease_of(first, &heartbeat->lease_end, &heartbeat->lease_ms))
      lc__fail(&error, LC_ERR_REFUSED, "LICENSE_NOT_FLOATING", "the answer holds no lease: the license is not floating");
  }
  lc_result_free(first);
  if (error.status != LC_OK) {
    heartbeat_free(heartbeat);
    return lc__finish(client, &error);
  }
  heartbeat->renewed_at = lc__now_ms(client);
  schedule(heartbeat);
  pthread_condattr_t attributes;
  int ready = pthread_condattr_init(&attributes) == 0;
#if !defined(__APPLE__) && !defined(_WIN32)
  ready = ready && pthread_condattr_setclock(&attributes, WAIT_CLOCK) == 0;
#endif
  ready = ready && pthread_cond_init(&heartbeat->wake, &attributes) == 0;
  pthread_condattr_destroy(&attributes);
  if (ready && pthread_mutex_init(&heartbeat->lock, NULL) != 0) {
    pthread_cond_destroy(&heartbeat->wake);
    ready = 0;
  }
  if (ready && pthread_create(&heartbeat->thread, NULL, beat, heartbeat) != 0) {
    pthread_cond_destroy(&heartbeat->wake);
    pthread_mutex_destroy(&heartbeat->lock);
    ready = 0;
  }
  if (!ready) {
    heartbeat_free(heartbeat);
    lc__fail(&error, LC_ERR_INTERNAL, "INTERNAL_ERROR", "the heartbeat's thread could not be started");
    return lc__finish(client, &error);
  }
  *out = heartbeat;
  return lc__finish(client, &error);
}

int lc_heartbeat_renew_now(lc_heartbeat *heartbeat) {
  if (heartbeat == NULL) return LC_ERR_INVALID_ARGUMENT;
  lc_error error = {0};
  pthread_mutex_lock(&heartbeat->lock);
  if (pthread_equal(heartbeat->thread, pthread_self())) {
    pthread_mutex_unlock(&heartbeat->lock);
    lc__fail(&error, LC_ERR_INVALID_ARGUMENT, "INVALID_ARGUMENT", "on_lost cannot renew its own heartbeat");
    return lc__finish(heartbeat->client, &error);
  }
  /* A renewal under way finishes first, then one more is made, as asked. */
  unsigned long seen = heartbeat->generation;
  while (heartbeat->state == RUNNING && heartbeat->renewing && heartbeat->generation == seen) pthread_cond_wait(&heartbeat->wake, &heartbeat->lock);
  seen = heartbeat->generation;
  if (heartbeat->state == RUNNING) {
    heartbeat->renew_requested = 1;
    pthread_cond_broadcast(&heartbeat->wake);
  }
  while (heartbeat->state == RUNNING && heartbeat->generation == seen) pthread_cond_wait(&heartbeat->wake, &heartbeat->lock);
  if (heartbeat->state == LOST) lc__fail(&error, heartbeat->lost_status, heartbeat->lost_code, "the seat was lost");
  else if (heartbeat->state == STOPPED) lc__fail(&error, LC_ERR_INVALID_ARGUMENT, "INVALID_ARGUMENT", "the heartbeat was stopped");
  pthread_mutex_unlock(&heartbeat->lock);
  return lc__finish(heartbeat->client, &error);
}

int64_t lc_heartbeat_lease_expires_at(lc_heartbeat *heartbeat) {
  if (heartbeat == NULL) return -1;
  pthread_mutex_lock(&heartbeat->lock);
  int64_t end = heartbeat->lease_end;
  pthread_mutex_unlock(&heartbeat->lock);
  return end;
}

const char *lc_heartbeat_lost_code(lc_heartbeat *heartbeat) {
  if (heartbeat == NULL) return NULL;
  pthread_mutex_lock(&heartbeat->lock);
  /* Set once, with the state, and never changed after: the pointer stays valid until lc_heartbeat_stop. */
  const char *code = heartbeat->lost_code;
  pthread_mutex_unlock(&heartbeat->lock);
  return code;
}

int lc_heartbeat_stop(lc_heartbeat *heartbeat) {
  if (heartbeat == NULL) return LC_OK;
  lc_client *client = heartbeat->client;
  pthread_mutex_lock(&heartbeat->lock);
  if (pthread_equal(heartbeat->thread, pthread_self())) {
    pthread_mutex_unlock(&heartbeat->lock);
    lc_error error = {0};
    lc__fail(&error, LC_ERR_INVALID_ARGUMENT, "INVALID_ARGUMENT", "on_lost cannot stop its own heartbeat");
    return lc__finish(client, &error);
  }
  int holding = heartbeat->state == RUNNING;
  heartbeat->state = STOPPED;
  pthread_cond_broadcast(&heartbeat->wake);
  pthread_mutex_unlock(&heartbeat->lock);
  pthread_join(heartbeat->thread, NULL);
  pthread_cond_destroy(&heartbeat->wake);
  pthread_mutex_destroy(&heartbeat->lock);
  int status = LC_OK;
  if (holding) {
    lc_result *released = NULL;
    status = lc_release(client, &heartbeat->credentials, &released);
    lc_result_free(released);
  } else {
    lc_error none = {0};
    lc__finish(client, &none);
  }
  heartbeat_free(heartbeat);
  return status;
}
