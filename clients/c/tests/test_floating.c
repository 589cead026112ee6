/* Floating seats: the heartbeat, its losses, release and borrowing. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "harness.h"

typedef struct losses {
  pthread_mutex_t lock;
  int count;
  char code[64];
  lc_heartbeat *heartbeat;
  int stop_from_callback;
} losses;

static void on_lost(void *user_data, const char *code, const char *data_json) {
  (void)data_json;
  losses *lost = user_data;
  pthread_mutex_lock(&lost->lock);
  lc_heartbeat *own = lost->heartbeat;
  pthread_mutex_unlock(&lost->lock);
  int stopped = own != NULL ? lc_heartbeat_stop(own) : LC_OK;
  pthread_mutex_lock(&lost->lock);
  lost->stop_from_callback = stopped;
  lost->count++;
  snprintf(lost->code, sizeof lost->code, "%s", code);
  pthread_mutex_unlock(&lost->lock);
}

static int was_lost(void *context) {
  losses *lost = context;
  pthread_mutex_lock(&lost->lock);
  int count = lost->count;
  pthread_mutex_unlock(&lost->lock);
  return count > 0;
}

static void pause_ms(long milliseconds) {
  struct timespec wait = {milliseconds / 1000, (milliseconds % 1000) * 1000000L};
  nanosleep(&wait, NULL);
}

static void two_clients_share_one_seat_taken_and_released(void) {
  char *key = floating_license(1);
  lc_client *first = client_for(NULL, NULL, NULL, 0), *second = client_for(NULL, NULL, NULL, 0);
  lc_credentials desk_a = {key, NULL, NULL, "desk-a"}, desk_b = {key, NULL, NULL, "desk-b"};
  lc_heartbeat_options options = {NULL, NULL, 200};
  lc_heartbeat *seat = NULL;
  int started = lc_heartbeat_start(first, &desk_a, &options, &seat);
  lc_result *result = NULL;
  int exhausted = lc_check(second, &desk_b, &result);
  const char *data = lc_last_error_data_json(second);
  int says_seats = data != NULL && strstr(data, "\"max_devices\":1") != NULL && strstr(data, "\"next_seat_at\"") != NULL;
  int stopped = lc_heartbeat_stop(seat);
  int taken = lc_check(second, &desk_b, &result);
  if (taken == LC_OK) CHECK(strstr(lc_result_data_json(result), "\"hwids\":[\"desk-b\"]") != NULL);
  lc_result_free(result);
  lc_client_free(first);
  lc_client_free(second);
  free(key);
  CHECK(started == LC_OK);
  CHECK(exhausted == LC_ERR_REFUSED && says_seats);
  CHECK(stopped == LC_OK);
  CHECK(taken == LC_OK);
}

static int64_t first_end;
static int renewed(void *heartbeat) { return lc_heartbeat_lease_expires_at(heartbeat) > first_end; }

static void the_heartbeat_renews_the_lease_on_its_thread_and_on_demand(void) {
  char *key = floating_license(1);
  lc_client *client = client_for(NULL, NULL, NULL, 0);
  lc_credentials desk = {key, NULL, NULL, "desk-a"};
  lc_heartbeat_options often = {NULL, NULL, 200};
  lc_heartbeat *seat = NULL;
  int started = lc_heartbeat_start(client, &desk, &often, &seat);
  first_end = started == LC_OK ? lc_heartbeat_lease_expires_at(seat) : 0;
  int by_timer = started == LC_OK && wait_for(renewed, seat, 10);
  int held = started == LC_OK && lc_heartbeat_lost_code(seat) == NULL;
  lc_heartbeat_stop(seat);
  /* Without an interval the next renewal is half a minute away: renew_now does it at once. */
  lc_heartbeat *slow = NULL;
  pause_ms(1100);
  int again = lc_heartbeat_start(client, &desk, NULL, &slow);
  first_end = again == LC_OK ? lc_heartbeat_lease_expires_at(slow) : 0;
  pause_ms(1100);
  int now = again == LC_OK ? lc_heartbeat_renew_now(slow) : -1;
  int moved = again == LC_OK && lc_heartbeat_lease_expires_at(slow) > first_end;
  lc_heartbeat_stop(slow);
  lc_client_free(client);
  free(key);
  CHECK(started == LC_OK && by_timer && held);
  CHECK(again == LC_OK && now == LC_OK && moved);
}

static void a_lost_seat_is_reported_once_through_on_lost(void) {
  char *key = floating_license(1);
  lc_client *through_proxy = client_for(PROXY_URL, NULL, NULL, 3000), *direct = client_for(NULL, NULL, NULL, 0);
  losses lost = {PTHREAD_MUTEX_INITIALIZER, 0, "", NULL, 0};
  lc_heartbeat_options options = {on_lost, &lost, 200};
  lc_credentials desk_a = {key, NULL, NULL, "desk-a"}, desk_b = {key, NULL, NULL, "desk-b"};
  lc_heartbeat *seat = NULL;
  int started = lc_heartbeat_start(through_proxy, &desk_a, &options, &seat);
  /* Desk A's renewals fail on the way while the owner frees its seat and desk B takes it. */
  proxy_mode("gateway-502", 0, NULL);
  char body[256];
  snprintf(body, sizeof body, "{\"license_key\":\"%s\",\"hwid\":\"desk-a\"}", key);
  cJSON_Delete(manage("/hwid/remove", body));
  lc_result *result = NULL;
  int taken = lc_check(direct, &desk_b, &result);
  lc_result_free(result);
  pause_ms(800);
  int lost_while_unreachable = was_lost(&lost);
  proxy_mode("pass", 0, NULL);
  int reported = wait_for(was_lost, &lost, 15);
  pause_ms(500);
  const char *code = started == LC_OK ? lc_heartbeat_lost_code(seat) : NULL;
  int code_kept = code != NULL && strcmp(code, "SEATS_EXHAUSTED") == 0;
  int stopped = lc_heartbeat_stop(seat);
  lc_client_free(through_proxy);
  lc_client_free(direct);
  free(key);
  CHECK(started == LC_OK && taken == LC_OK);
  CHECK(!lost_while_unreachable); /* an unreachable service is no lost seat while the lease runs */
  CHECK(reported && lost.count == 1);
  CHECK_STR(lost.code, "SEATS_EXHAUSTED");
  CHECK(code_kept);
  CHECK(stopped == LC_OK); /* a lost seat has nothing to release */
}

static void an_unreachable_service_loses_the_seat_only_when_the_lease_has_ended(void) {
  char *key = floating_license(1);
  fake_clock clock;
  fake_clock_start(&clock);
  lc_options client_options = {PROXY_URL, APP_ID, PUBLIC_JWK, NULL, 500, fake_clock_now, &clock};
  lc_client *client = lc_client_new(&client_options);
  /* on_lost stopping its own heartbeat is refused, not a deadlock. */
  losses lost = {PTHREAD_MUTEX_INITIALIZER, 0, "", NULL, 0};
  lc_heartbeat_options options = {on_lost, &lost, 200};
  lc_credentials desk = {key, NULL, NULL, "desk-a"};
  lc_heartbeat *seat = NULL;
  int started = lc_heartbeat_start(client, &desk, &options, &seat);
  pthread_mutex_lock(&lost.lock);
  lost.heartbeat = seat;
  pthread_mutex_unlock(&lost.lock);
  proxy_mode("gateway-502", 0, NULL);
  pause_ms(1500);
  int early = was_lost(&lost);
  __atomic_add_fetch(&clock.now_ms, 120 * 1000, __ATOMIC_SEQ_CST);
  int reported = wait_for(was_lost, &lost, 15);
  lc_heartbeat_stop(seat);
  lc_client_free(client);
  free(key);
  CHECK(started == LC_OK);
  CHECK(!early);
  CHECK(reported);
  CHECK_STR(lost.code, "NETWORK_ERROR");
  CHECK(lost.stop_from_callback == LC_ERR_INVALID_ARGUMENT);
}

static void a_full_or_fixed_license_refuses_the_heartbeat_at_once(void) {
  char *full = floating_license(1);
  char *fixed = new_license("");
  lc_client *client = client_for(NULL, NULL, NULL, 0);
  lc_credentials desk_a = {full, NULL, NULL, "desk-a"}, desk_b = {full, NULL, NULL, "desk-b"}, fixed_desk = {fixed, NULL, NULL, "desk-a"},
                 no_device = {full, NULL, NULL, NULL};
  lc_result *result = NULL;
  int taken = lc_check(client, &desk_a, &result);
  lc_result_free(result);
  lc_heartbeat *seat = NULL;
  int exhausted = lc_heartbeat_start(client, &desk_b, NULL, &seat);
  CHECK_CODE(client, exhausted, seat, "SEATS_EXHAUSTED");
  int not_floating = lc_heartbeat_start(client, &fixed_desk, NULL, &seat);
  CHECK_CODE(client, not_floating, seat, "LICENSE_NOT_FLOATING");
  int without_hwid = lc_heartbeat_start(client, &no_device, NULL, &seat);
  CHECK_CODE(client, without_hwid, seat, "INVALID_ARGUMENT");
  lc_client_free(client);
  free(full);
  free(fixed);
  CHECK(taken == LC_OK);
}

static void release_gives_the_seat_back(void) {
  char *key = floating_license(1);
  lc_client *client = client_for(NULL, NULL, NULL, 0);
  lc_credentials desk = {key, NULL, NULL, "desk-a"}, no_device = {key, NULL, NULL, NULL};
  lc_result *result = NULL;
  int taken = lc_check(client, &desk, &result);
  lc_result_free(result);
  int released = lc_release(client, &desk, &result);
  if (released == LC_OK) CHECK_STR(lc_result_message(result), "SEAT_RELEASED");
  lc_result_free(result);
  int again = lc_release(client, &desk, &result);
  CHECK_CODE(client, again, result, "HWID_NOT_BOUND");
  int without_hwid = lc_release(client, &no_device, &result);
  CHECK_CODE(client, without_hwid, result, "INVALID_ARGUMENT");
  lc_client_free(client);
  free(key);
  CHECK(taken == LC_OK && released == LC_OK);
}

static void a_borrowed_seat_works_offline_until_the_borrow_ends(void) {
  char *key = floating_license(1);
  char *fixed = new_license("");
  fake_clock clock;
  fake_clock_start(&clock);
  const char *folder = state_folder();
  /* A generous deadline online (a busy machine); a short one once the service is dark, where every try fails at once. */
  lc_options online_options = {SERVICE_URL, APP_ID, PUBLIC_JWK, folder, 15000, fake_clock_now, &clock};
  lc_options dark_options = {SERVICE_URL, APP_ID, PUBLIC_JWK, folder, 1000, fake_clock_now, &clock};
  lc_client *online = lc_client_new(&online_options);
  lc_credentials credentials = {key, NULL, NULL, "laptop"}, fixed_credentials = {fixed, NULL, NULL, "laptop"};
  lc_result *result = NULL;
  int borrowed = lc_borrow(online, &credentials, 120, &result);
  int has_token = borrowed == LC_OK && lc_result_string(result, "offline_token") != NULL;
  lc_result_free(result);
  result = NULL;
  int kept = lc_release(online, &credentials, &result);
  CHECK_CODE(online, kept, result, "LEASE_BORROWED");
  set_server(0);
  lc_client *laptop = lc_client_new(&dark_options);
  int offline = lc_check(laptop, &credentials, &result);
  int offline_borrowed = offline == LC_OK && lc_result_offline(result) && strstr(lc_result_data_json(result), "\"borrowed\":true") != NULL;
  lc_result_free(result);
  result = NULL;
  clock.now_ms += 180 * 1000;
  int ended = lc_check(laptop, &credentials, &result);
  CHECK_CODE(laptop, ended, result, "OFFLINE_TOKEN_EXPIRED");
  set_server(1);
  int not_floating = lc_borrow(online, &fixed_credentials, 120, &result);
  CHECK_CODE(online, not_floating, result, "LICENSE_NOT_FLOATING");
  lc_client_free(laptop);
  lc_client_free(online);
  free(key);
  free(fixed);
  CHECK(borrowed == LC_OK && has_token);
  CHECK(offline_borrowed);
}

const test_case floating_tests[] = {
    {"floating: two clients share one seat, taken and released", two_clients_share_one_seat_taken_and_released},
    {"floating: the heartbeat renews the lease on its thread and on demand", the_heartbeat_renews_the_lease_on_its_thread_and_on_demand},
    {"floating: a lost seat is reported once through on_lost", a_lost_seat_is_reported_once_through_on_lost},
    {"floating: an unreachable service loses the seat only when the lease has ended",
     an_unreachable_service_loses_the_seat_only_when_the_lease_has_ended},
    {"floating: a full or fixed license refuses the heartbeat at once", a_full_or_fixed_license_refuses_the_heartbeat_at_once},
    {"floating: release gives the seat back", release_gives_the_seat_back},
    {"floating: a borrowed seat works offline until the borrow ends", a_borrowed_seat_works_offline_until_the_borrow_ends},
    {NULL, NULL}};
