// lsp/dispatcher.h — JSON-RPC 2.0 over a Transport: parse, route to typed handlers, reply.
//
// A typed dispatch table: bind("textDocument/hover", this, &Server::onHover) wraps
// parse params → call → serialize. A parse failure is an InvalidParams reply, an unknown request
// MethodNotFound, a request before `initialize` ServerNotInitialized; unknown notifications are
// ignored. Every request is answered exactly once: a Reply that is dropped unanswered answers
// InternalError. Also: requests from the server to the client (with their responses routed to
// callbacks), `$/cancelRequest`, and `$/logTrace` tracing of the traffic.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "logger.h"
#include "protocol.h"
#include "transport.h"

namespace asyncfix::lsp {

/// The answer to one incoming request, sent once.
class PendingReply {
public:
  PendingReply(class Dispatcher &dispatcher, Json id, std::string method)
      : dispatcher_(dispatcher), id_(std::move(id)), method_(std::move(method)) {}
  ~PendingReply();
  PendingReply(const PendingReply &) = delete;
  PendingReply &operator=(const PendingReply &) = delete;

  void result(Json value);
  void error(ErrorCode code, const std::string &message);
  bool done() const { return done_; }
  /// Safe to ask from any thread (a worker gives up on a cancelled request).
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }
  void cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  const std::string &method() const { return method_; }

private:
  Dispatcher &dispatcher_;
  Json id_;
  std::string method_;
  bool done_ = false;
  std::atomic<bool> cancelled_ = false;
};

/// A typed handle on a PendingReply, for handlers that answer later (long-running commands).
template <class R> class Reply {
public:
  explicit Reply(std::shared_ptr<PendingReply> state) : state_(std::move(state)) {}
  void operator()(const R &value) const { state_->result(toJSON(value)); }
  void error(ErrorCode code, const std::string &message) const { state_->error(code, message); }
  /// The client sent $/cancelRequest for this request (or asked the server to shut down).
  bool cancelled() const { return state_->cancelled(); }
  bool done() const { return state_->done(); }

private:
  std::shared_ptr<PendingReply> state_;
};

class Dispatcher {
public:
  enum class State : std::uint8_t { Uninitialized, Running, ShutDown };

  Dispatcher(Transport &transport, Logger &log) : transport_(transport), log_(log) {}
  ~Dispatcher();
  Dispatcher(const Dispatcher &) = delete;
  Dispatcher &operator=(const Dispatcher &) = delete;

  // ---- the dispatch table ----
  template <class P, class R, class S> void bind(const std::string &method, S *self, R (S::*handler)(const P &)) {
    requests_[method] = [self, handler](const Json &params, const std::shared_ptr<PendingReply> &reply) {
      P typed{};
      fromJSON(params, typed, "params");
      reply->result(toJSON((self->*handler)(typed)));
    };
  }
  template <class P, class R, class S>
  void bindAsync(const std::string &method, S *self, void (S::*handler)(const P &, const Reply<R> &)) {
    requests_[method] = [self, handler](const Json &params, const std::shared_ptr<PendingReply> &reply) {
      P typed{};
      fromJSON(params, typed, "params");
      (self->*handler)(typed, Reply<R>(reply));
    };
  }
  template <class P, class S> void bindNotification(const std::string &method, S *self, void (S::*handler)(const P &)) {
    notifications_[method] = [self, handler](const Json &params) {
      P typed{};
      fromJSON(params, typed, "params");
      (self->*handler)(typed);
    };
  }

  // ---- server → client ----
  template <class P> void notify(const std::string &method, const P &params) {
    Json message = {{"jsonrpc", "2.0"}, {"method", method}};
    if (Json p = toJSON(params); !p.is_null()) message["params"] = std::move(p);
    send(message);
  }
  /// A notification whose params are JSON text already (toJSONText).
  void notifyText(const std::string &method, std::string_view params);
  /// Sends a request; `onResult` gets the parsed result, or nullptr and the error.
  template <class P, class R>
  void request(const std::string &method, const P &params, std::function<void(const R *, const LspError *)> onResult) {
    const std::int64_t id = nextId_++;
    pending_[id] = [onResult = std::move(onResult), method](const Json *result, const LspError *error) {
      if (error) return onResult(nullptr, error);
      R typed{};
      try {
        fromJSON(*result, typed, "result");
      } catch (const LspError &e) {
        return onResult(nullptr, &e);
      }
      onResult(&typed, nullptr);
    };
    Json message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (Json p = toJSON(params); !p.is_null()) message["params"] = std::move(p);
    send(message);
  }

  // ---- incoming ----
  /// Handles one message body (request, notification or response).
  void handle(std::string_view body);
  /// Reads the messages that are available without blocking into the queue; a `$/cancelRequest`
  /// among them takes effect at once, and a `shutdown` request cancels the running request. For
  /// long handlers, between two steps of their work.
  void pollIncoming();
  /// The next message read by pollIncoming(), if any.
  std::optional<std::string> takeQueued();
  bool hasQueued() const { return !queue_.empty(); }

  void setState(State state) { state_ = state; }
  State state() const { return state_; }
  /// "off" | "messages" | "verbose" ($/setTrace, InitializeParams.trace).
  void setTrace(const std::string &value);

  /// Writes one message (used by PendingReply).
  void send(const Json &message);
  Logger &log() { return log_; }

private:
  friend class PendingReply;
  void handleRequest(const Json &id, const std::string &method, const Json &params);
  void handleNotification(const std::string &method, const Json &params);
  void handleResponse(const Json &message);
  void replyError(const Json &id, ErrorCode code, const std::string &message);
  void trace(const std::string &what, const Json *params);
  void cancel(const Json &id);

  Transport &transport_;
  Logger &log_;
  State state_ = State::Uninitialized;
  std::map<std::string, std::function<void(const Json &, const std::shared_ptr<PendingReply> &)>> requests_;
  std::map<std::string, std::function<void(const Json &)>> notifications_;
  std::map<std::int64_t, std::function<void(const Json *, const LspError *)>> pending_; ///< our requests
  std::int64_t nextId_ = 1;
  std::map<std::string, std::weak_ptr<PendingReply>> inflight_; ///< by id.dump()
  std::set<std::string> cancelledEarly_;                        ///< cancelled before they were handled (queued)
  std::deque<std::string> queue_;
  int trace_ = 0; ///< 0 off, 1 messages, 2 verbose
  bool closing_ = false;
};

} // namespace asyncfix::lsp
