// licensing.hpp: the C++17 interface of the licensing client, header-only over
// licensing.h (link the `licensing` library). RAII handles, std::string, and
// every failure thrown as licensing::Error with the code of licensing.h.
#ifndef LICENSING_HPP
#define LICENSING_HPP

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "licensing.h"

namespace licensing {

// The client's settings, as lc_options: url empty means never online (an air-gapped program); state_dir empty means
// no offline token or license file; timeout_ms 0 means 10,000.
struct Options {
  std::string url;
  std::string app_id;
  std::string public_key;
  std::string state_dir;
  long timeout_ms = 0;
};

// A license key, or the username and password registered for one; an empty string is "not given".
struct Credentials {
  std::string license;
  std::string username;
  std::string password;
  std::string hwid;
};

// A verified answer: the service's message and data (JSON), or the stored token's when offline.
struct Result {
  std::string message;
  std::string data_json;
  bool offline = false;
};

// An activation request: the text to hand over, and the portal's link holding it ("" without a portal URL).
struct ActivationRequest {
  std::string request;
  std::string link;
};

// Every failure: code() is the service's message, or INVALID_SIGNATURE, NETWORK_ERROR,
// OFFLINE_TOKEN_EXPIRED, LICENSE_FILE_EXPIRED, LICENSE_FILE_MISMATCH, CLOCK_MOVED_BACK,
// INVALID_ARGUMENT, INTERNAL_ERROR; data_json() what the service sent with it.
class Error : public std::runtime_error {
 public:
  Error(std::string code, std::string data_json, const std::string &detail)
      : std::runtime_error(detail.empty() ? code : code + ": " + detail), code_(std::move(code)), data_json_(std::move(data_json)) {}
  const std::string &code() const { return code_; }
  // "" when the service sent no data.
  const std::string &data_json() const { return data_json_; }

 private:
  std::string code_;
  std::string data_json_;
};

namespace detail {

inline const char *or_null(const std::string &text) { return text.empty() ? nullptr : text.c_str(); }
inline std::string or_empty(const char *text) { return text == nullptr ? std::string() : std::string(text); }

inline lc_credentials view(const Credentials &credentials) {
  return lc_credentials{or_null(credentials.license), or_null(credentials.username), or_null(credentials.password), or_null(credentials.hwid)};
}

[[noreturn]] inline void raise(lc_client *client) {
  throw Error(or_empty(lc_last_error_code(client)), or_empty(lc_last_error_data_json(client)), or_empty(lc_last_error_detail(client)));
}

inline Result take(lc_client *client, int status, lc_result *result) {
  if (status != LC_OK) raise(client);
  std::unique_ptr<lc_result, decltype(&lc_result_free)> owned(result, &lc_result_free);
  return Result{lc_result_message(result), lc_result_data_json(result), lc_result_offline(result)};
}

}  // namespace detail

// A floating seat kept by a heartbeat thread (Client::start_heartbeat); destroying it stops it and gives the seat back.
class Heartbeat {
 public:
  Heartbeat(Heartbeat &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)), client_(other.client_), lost_(std::move(other.lost_)) {}
  Heartbeat &operator=(Heartbeat &&other) noexcept {
    if (this != &other) {
      stop_quietly();
      handle_ = std::exchange(other.handle_, nullptr);
      client_ = other.client_;
      lost_ = std::move(other.lost_);
    }
    return *this;
  }
  Heartbeat(const Heartbeat &) = delete;
  Heartbeat &operator=(const Heartbeat &) = delete;
  ~Heartbeat() { stop_quietly(); }

  // Stops renewing and releases the seat unless it was lost; throws the release's failure.
  void stop() {
    if (handle_ == nullptr) return;
    if (lc_heartbeat_stop(std::exchange(handle_, nullptr)) != LC_OK) detail::raise(client_);
  }
  // Renews now (e.g. after the computer woke from sleep); throws the loss when the seat is gone.
  void renew_now() {
    if (handle_ != nullptr && lc_heartbeat_renew_now(handle_) != LC_OK) detail::raise(client_);
  }
  // The lease's end in milliseconds since the epoch, as of the last renewal.
  int64_t lease_expires_at() const { return lc_heartbeat_lease_expires_at(handle_); }
  // Why the seat was lost; "" while it is held.
  std::string lost_code() const { return detail::or_empty(lc_heartbeat_lost_code(handle_)); }

 private:
  friend class Client;
  struct Lost {
    std::function<void(const Error &)> callback;
  };
  Heartbeat(lc_heartbeat *handle, lc_client *client, std::unique_ptr<Lost> lost) : handle_(handle), client_(client), lost_(std::move(lost)) {}
  void stop_quietly() noexcept {
    if (handle_ != nullptr) lc_heartbeat_stop(std::exchange(handle_, nullptr));
  }
  static void on_lost(void *user_data, const char *code, const char *data_json) {
    auto *lost = static_cast<Lost *>(user_data);
    // No exception may cross the C library's thread.
    try {
      if (lost->callback) lost->callback(Error(detail::or_empty(code), detail::or_empty(data_json), "the seat was lost"));
    } catch (...) {
    }
  }
  lc_heartbeat *handle_;
  lc_client *client_;
  std::unique_ptr<Lost> lost_;
};

// A client of one application; one may serve many threads. Throws Error("INVALID_ARGUMENT") for malformed options.
class Client {
 public:
  explicit Client(const Options &options) {
    lc_options native{};
    native.url = detail::or_null(options.url);
    native.app_id = options.app_id.c_str();
    native.public_key = options.public_key.c_str();
    native.state_dir = detail::or_null(options.state_dir);
    native.timeout_ms = options.timeout_ms;
    handle_ = lc_client_new(&native);
    if (handle_ == nullptr) throw Error("INVALID_ARGUMENT", "", "url, app_id or public_key is missing or malformed");
  }
  Client(Client &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Client &operator=(Client &&other) noexcept {
    if (this != &other) {
      lc_client_free(handle_);
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  Client(const Client &) = delete;
  Client &operator=(const Client &) = delete;
  ~Client() { lc_client_free(handle_); }

  // POST /auth, falling back to the stored offline token when the service cannot be reached (lc_check).
  Result check(const Credentials &credentials) {
    lc_credentials native = detail::view(credentials);
    lc_result *result = nullptr;
    const int status = lc_check(handle_, &native, &result);
    return detail::take(handle_, status, result);
  }
  Result borrow(const Credentials &credentials, int64_t seconds) {
    lc_credentials native = detail::view(credentials);
    lc_result *result = nullptr;
    const int status = lc_borrow(handle_, &native, seconds, &result);
    return detail::take(handle_, status, result);
  }
  Result release(const Credentials &credentials) {
    lc_credentials native = detail::view(credentials);
    lc_result *result = nullptr;
    const int status = lc_release(handle_, &native, &result);
    return detail::take(handle_, status, result);
  }
  Result reset_hwid(const Credentials &credentials) {
    lc_credentials native = detail::view(credentials);
    lc_result *result = nullptr;
    const int status = lc_reset_hwid(handle_, &native, &result);
    return detail::take(handle_, status, result);
  }
  // POST /register (`register` itself is a reserved word of C++).
  Result register_credentials(const std::string &license, const std::string &username, const std::string &password) {
    lc_result *result = nullptr;
    const int status = lc_register(handle_, license.c_str(), username.c_str(), password.c_str(), &result);
    return detail::take(handle_, status, result);
  }
  // POST /usage; usage_id "" makes a fresh one, sent with every retry of this call.
  Result record_usage(const Credentials &credentials, const std::string &counter, int64_t amount = 1, const std::string &usage_id = "") {
    lc_credentials native = detail::view(credentials);
    lc_result *result = nullptr;
    const int status = lc_record_usage(handle_, &native, counter.c_str(), amount, detail::or_null(usage_id), &result);
    return detail::take(handle_, status, result);
  }
  // Takes or renews the seat now and keeps it; on_lost runs on the heartbeat's thread. The client must outlive it.
  Heartbeat start_heartbeat(const Credentials &credentials, std::function<void(const Error &)> on_lost = {}, int64_t interval_ms = 0) {
    lc_credentials native = detail::view(credentials);
    auto lost = std::make_unique<Heartbeat::Lost>(Heartbeat::Lost{std::move(on_lost)});
    lc_heartbeat_options options{&Heartbeat::on_lost, lost.get(), interval_ms};
    lc_heartbeat *handle = nullptr;
    if (lc_heartbeat_start(handle_, &native, &options, &handle) != LC_OK) detail::raise(handle_);
    return Heartbeat(handle, handle_, std::move(lost));
  }
  // POST /license-file: a license file for credentials.hwid, verified and kept in state_dir (lc_license_file);
  // data_json holds the license data and license_file. lifetime_seconds 0: the application's longest.
  Result license_file(const Credentials &credentials, int64_t lifetime_seconds = 0, bool encrypt = false) {
    lc_credentials native = detail::view(credentials);
    lc_file_options options{lifetime_seconds, encrypt};
    lc_result *result = nullptr;
    const int status = lc_license_file(handle_, &native, &options, &result);
    return detail::take(handle_, status, result);
  }
  // An activation request for a device that cannot reach the service, its nonce kept in state_dir until its file is loaded;
  // `link` is "<portal_url>/activate/#<request>" when a portal_url is given.
  ActivationRequest activation_request(const std::string &license, const std::string &hwid, int64_t lifetime_seconds = 0, bool encrypt = false,
                                       const std::string &portal_url = "") {
    lc_file_options options{lifetime_seconds, encrypt};
    lc_result *result = nullptr;
    if (lc_activation_request(handle_, license.c_str(), hwid.c_str(), &options, detail::or_null(portal_url), &result) != LC_OK) detail::raise(handle_);
    std::unique_ptr<lc_result, decltype(&lc_result_free)> owned(result, &lc_result_free);
    return ActivationRequest{detail::or_empty(lc_result_string(result, "request")), detail::or_empty(lc_result_string(result, "link"))};
  }
  // Accepts a license file made for one of this program's activation requests and keeps it (lc_load_license_file);
  // data_json is the file's claims.
  Result load_license_file(const std::string &text) {
    lc_result *result = nullptr;
    const int status = lc_load_license_file(handle_, text.c_str(), &result);
    return detail::take(handle_, status, result);
  }
  // Deletes the stored license file of this license and device and gives its return code (lfx1.).
  std::string return_code(const std::string &license, const std::string &hwid) {
    lc_result *result = nullptr;
    if (lc_return_code(handle_, license.c_str(), hwid.c_str(), &result) != LC_OK) detail::raise(handle_);
    std::unique_ptr<lc_result, decltype(&lc_result_free)> owned(result, &lc_result_free);
    return detail::or_empty(lc_result_string(result, "return_code"));
  }
  // POST /license-file/return; the stored file is deleted once the service took it back.
  Result return_license_file(const std::string &license, const std::string &hwid) {
    lc_result *result = nullptr;
    const int status = lc_return_license_file(handle_, license.c_str(), hwid.c_str(), &result);
    return detail::take(handle_, status, result);
  }
  // POST /trial: TRIAL_STARTED or TRIAL_RESUMED; the trial's key is the data's "license" member.
  Result start_trial(const std::string &hwid) {
    lc_result *result = nullptr;
    const int status = lc_start_trial(handle_, hwid.c_str(), &result);
    return detail::take(handle_, status, result);
  }
  std::string machine_id() {
    const char *id = lc_machine_id(handle_);
    if (id == nullptr) throw Error("INTERNAL_ERROR", "", "out of memory");
    return id;
  }
  // The C handle, for calls this wrapper does not cover.
  lc_client *native_handle() const { return handle_; }

 private:
  lc_client *handle_ = nullptr;
};

}  // namespace licensing

#endif
