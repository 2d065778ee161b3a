#include "dispatcher.h"

namespace asyncfix::lsp {

// ---- PendingReply ----

PendingReply::~PendingReply() {
  if (done_ || dispatcher_.closing_) return;
  try {
    dispatcher_.log().error("request `" + method_ + "` " + id_.dump() + " was dropped without an answer");
    error(ErrorCode::InternalError, "the server dropped the request");
  } catch (...) {
    // Nothing more to do from a destructor: the client may time the request out.
  }
}

void PendingReply::result(Json value) {
  if (done_) {
    dispatcher_.log().error("request `" + method_ + "` " + id_.dump() + " answered twice; second answer dropped");
    return;
  }
  done_ = true;
  dispatcher_.inflight_.erase(id_.dump());
  dispatcher_.send({{"jsonrpc", "2.0"}, {"id", id_}, {"result", std::move(value)}});
}

void PendingReply::error(ErrorCode code, const std::string &message) {
  if (done_) {
    dispatcher_.log().error("request `" + method_ + "` " + id_.dump() + " answered twice; second answer dropped");
    return;
  }
  done_ = true;
  dispatcher_.inflight_.erase(id_.dump());
  dispatcher_.replyError(id_, code, message);
}

// ---- Dispatcher ----

Dispatcher::~Dispatcher() {
  closing_ = true;
  pending_.clear(); // callbacks may hold replies; they must go while the rest is still here
}

void Dispatcher::send(const Json &message) {
  // Strings hold what the client sent or the engine produced; never let a stray invalid byte
  // throw here (it would lose the message): replace it with U+FFFD.
  const std::string body = message.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (log_.enabled(LogLevel::Trace)) log_.log(LogLevel::Trace, "--> " + body);
  transport_.write(body);
}

void Dispatcher::notifyText(const std::string &method, std::string_view params) {
  // As send() writes {"jsonrpc": "2.0", "method": method, "params": params}: keys sorted.
  std::string body = R"({"jsonrpc":"2.0","method":)";
  body += Json(method).dump(-1, ' ', false, Json::error_handler_t::replace);
  body += R"(,"params":)";
  body += params;
  body += '}';
  if (log_.enabled(LogLevel::Trace)) log_.log(LogLevel::Trace, "--> " + body);
  transport_.write(body);
}

void Dispatcher::replyError(const Json &id, ErrorCode code, const std::string &message) {
  log_.debug("error " + std::to_string(static_cast<int>(code)) + " for " + id.dump() + ": " + message);
  send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", static_cast<int>(code)}, {"message", message}}}});
}

void Dispatcher::setTrace(const std::string &value) { trace_ = value == "verbose" ? 2 : value == "messages" ? 1 : 0; }

void Dispatcher::trace(const std::string &what, const Json *params) {
  if (trace_ == 0) return;
  Json body = {{"message", what}};
  if (trace_ == 2 && params && !params->is_null())
    body["verbose"] = "Params: " + params->dump(-1, ' ', false, Json::error_handler_t::replace);
  send({{"jsonrpc", "2.0"}, {"method", "$/logTrace"}, {"params", body}});
}

void Dispatcher::handle(std::string_view body) {
  if (log_.enabled(LogLevel::Trace)) log_.log(LogLevel::Trace, "<-- " + std::string(body));
  Json message;
  try {
    message = Json::parse(body);
  } catch (const Json::exception &e) {
    log_.warn(std::string("invalid JSON: ") + e.what());
    replyError(nullptr, ErrorCode::ParseError, std::string("invalid JSON: ") + e.what());
    return;
  }
  if (!message.is_object()) {
    replyError(nullptr, ErrorCode::InvalidRequest, "a message must be a JSON object");
    return;
  }
  const auto method = message.find("method");
  const auto id = message.find("id");
  const bool validId = id != message.end() && (id->is_number_integer() || id->is_string());
  if (method == message.end()) {
    if (id != message.end() && (message.contains("result") || message.contains("error"))) {
      handleResponse(message);
      return;
    }
    replyError(validId ? *id : Json(nullptr), ErrorCode::InvalidRequest, "a message needs a `method` or a `result`");
    return;
  }
  const auto version = message.find("jsonrpc");
  const bool isRequest = id != message.end();
  std::string problem;
  if (version == message.end() || *version != "2.0") problem = "`jsonrpc` must be \"2.0\"";
  else if (!method->is_string()) problem = "`method` must be a string";
  else if (isRequest && !validId) problem = "`id` must be an integer or a string";
  if (!problem.empty()) {
    if (isRequest) replyError(validId ? *id : Json(nullptr), ErrorCode::InvalidRequest, problem);
    else log_.warn("invalid notification dropped: " + problem);
    return;
  }
  const auto params = message.find("params");
  const Json &p = params == message.end() ? Json() : *params;
  // `params`, when present, is structured (JSON-RPC 2.0 §4.2).
  if (params != message.end() && !params->is_object() && !params->is_array() && !params->is_null()) {
    if (isRequest) replyError(*id, ErrorCode::InvalidParams, "`params` must be an object or an array");
    else log_.warn("notification `" + method->get<std::string>() + "` dropped: `params` is not structured");
    return;
  }
  log_.debug((isRequest ? "request " : "notification ") + method->get<std::string>() +
             (isRequest ? " " + id->dump() : ""));
  if (isRequest) handleRequest(*id, method->get<std::string>(), p);
  else handleNotification(method->get<std::string>(), p);
}

void Dispatcher::handleRequest(const Json &id, const std::string &method, const Json &params) {
  trace("Received request '" + method + " - (" + id.dump() + ")'.", &params);
  if (state_ == State::Uninitialized && method != "initialize")
    return replyError(id, ErrorCode::ServerNotInitialized, "the server has not been initialized");
  if (state_ == State::ShutDown) return replyError(id, ErrorCode::InvalidRequest, "the server is shutting down");
  if (state_ == State::Running && method == "initialize")
    return replyError(id, ErrorCode::InvalidRequest, "the server is already initialized");
  const std::string key = id.dump();
  if (cancelledEarly_.erase(key) > 0) return replyError(id, ErrorCode::RequestCancelled, "request cancelled");
  const auto handler = requests_.find(method);
  if (handler == requests_.end()) return replyError(id, ErrorCode::MethodNotFound, "unknown method `" + method + "`");

  auto reply = std::make_shared<PendingReply>(*this, id, method);
  inflight_[key] = reply;
  try {
    handler->second(params, reply);
  } catch (const LspError &e) {
    if (!reply->done()) reply->error(e.code, e.what());
    else log_.error("`" + method + "` failed after answering: " + e.what());
  } catch (const std::exception &e) {
    log_.error("`" + method + "` failed: " + e.what());
    if (!reply->done()) reply->error(ErrorCode::InternalError, std::string("internal error: ") + e.what());
  }
}

void Dispatcher::handleNotification(const std::string &method, const Json &params) {
  trace("Received notification '" + method + "'.", &params);
  if (method != "exit") {
    if (state_ == State::Uninitialized) {
      log_.debug("notification `" + method + "` before initialize dropped");
      return;
    }
    if (state_ == State::ShutDown) {
      log_.debug("notification `" + method + "` after shutdown dropped");
      return;
    }
  }
  if (method == "$/cancelRequest") {
    if (params.is_object() && params.contains("id")) cancel(params["id"]);
    return;
  }
  if (method == "$/setTrace") {
    if (params.is_object() && params.contains("value") && params["value"].is_string())
      setTrace(params["value"].get<std::string>());
    return;
  }
  const auto handler = notifications_.find(method);
  if (handler == notifications_.end()) {
    log_.debug("notification `" + method + "` ignored");
    return;
  }
  try {
    handler->second(params);
  } catch (const LspError &e) {
    log_.warn("notification `" + method + "` dropped: " + e.what());
  } catch (const std::exception &e) {
    log_.error("notification `" + method + "` failed: " + e.what());
  }
}

void Dispatcher::handleResponse(const Json &message) {
  const Json &id = message["id"];
  const auto it = id.is_number_integer() ? pending_.find(id.get<std::int64_t>()) : pending_.end();
  if (it == pending_.end()) {
    log_.warn("response to an unknown request " + id.dump() + " ignored");
    return;
  }
  auto callback = std::move(it->second);
  pending_.erase(it);
  try {
    if (const auto error = message.find("error"); error != message.end()) {
      const int code = error->is_object() && error->contains("code") && (*error)["code"].is_number_integer()
                           ? (*error)["code"].get<int>()
                           : static_cast<int>(ErrorCode::InternalError);
      const std::string text = error->is_object() && error->contains("message") && (*error)["message"].is_string()
                                   ? (*error)["message"].get<std::string>()
                                   : std::string("error");
      const LspError e(static_cast<ErrorCode>(code), text);
      callback(nullptr, &e);
    } else {
      callback(&message["result"], nullptr);
    }
  } catch (const std::exception &e) {
    log_.error(std::string("handling a response failed: ") + e.what());
  }
}

void Dispatcher::cancel(const Json &id) {
  if (!id.is_number_integer() && !id.is_string()) return;
  const std::string key = id.dump();
  if (const auto it = inflight_.find(key); it != inflight_.end()) {
    if (const auto reply = it->second.lock()) {
      reply->cancel();
      return;
    }
  }
  // Not running: it may be waiting in the queue; or it was answered already (then this is a no-op
  // that the bound keeps from growing).
  if (cancelledEarly_.size() > 1024) cancelledEarly_.clear();
  cancelledEarly_.insert(key);
}

void Dispatcher::pollIncoming() {
  while (transport_.hasPending()) {
    std::optional<std::string> body = transport_.read();
    if (!body) break;
    const Json message = Json::parse(*body, nullptr, false);
    if (message.is_object() && message.contains("method") && message["method"].is_string()) {
      const std::string &method = message["method"].get_ref<const std::string &>();
      if (method == "$/cancelRequest" && !message.contains("id")) {
        if (message.contains("params") && message["params"].is_object() && message["params"].contains("id"))
          cancel(message["params"]["id"]);
        continue;
      }
      if (method == "shutdown" && message.contains("id")) {
        // Answer shutdown at once: whatever runs now stops at its next check.
        for (auto &[key, weak] : inflight_)
          if (const auto reply = weak.lock()) reply->cancel();
      }
    }
    queue_.push_back(std::move(*body));
  }
}

std::optional<std::string> Dispatcher::takeQueued() {
  if (queue_.empty()) return std::nullopt;
  std::string body = std::move(queue_.front());
  queue_.pop_front();
  return body;
}

} // namespace asyncfix::lsp
