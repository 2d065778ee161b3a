#include "asyncfix/encoding.h"

#include <cerrno>
#include <cstdint>
#include <iconv.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>

#include "asyncfix/line_index.h"
#include "asyncfix/report.h"
#include "asyncfix/utf8.h"

namespace asyncfix {
namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

/// The line of `bytes` starting at `from`, without its terminator; `next` is where the next starts.
std::string_view lineAt(std::string_view bytes, std::size_t from, std::size_t &next) {
  std::size_t end = from;
  while (end < bytes.size() && bytes[end] != '\n' && bytes[end] != '\r') ++end;
  next = end;
  if (next < bytes.size() && bytes[next] == '\r') ++next;
  if (next < bytes.size() && bytes[next] == '\n' && (next == end || bytes[next - 1] == '\r')) ++next;
  return bytes.substr(from, end - from);
}

/// PEP 263's `^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)` on one line.
std::optional<std::string> cookie(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && blank(line[i])) ++i;
  if (i >= line.size() || line[i] != '#') return std::nullopt;
  for (std::size_t at = line.find("coding", i); at != std::string_view::npos; at = line.find("coding", at + 1)) {
    std::size_t j = at + 6;
    if (j >= line.size() || (line[j] != ':' && line[j] != '=')) continue;
    ++j;
    while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
    std::size_t k = j;
    while (k < line.size() &&
           (std::isalnum(static_cast<unsigned char>(line[k])) || line[k] == '-' || line[k] == '_' || line[k] == '.'))
      ++k;
    if (k > j) return std::string(line.substr(j, k - j));
  }
  return std::nullopt;
}

/// Lower case, `_` as `-`: how Python compares encoding names.
std::string normal(std::string_view name) {
  std::string out;
  for (const char c : name) out += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool isUtf8(std::string_view name) {
  const std::string n = normal(name);
  return n == "utf-8" || n == "utf8" || n == "u8" || n == "utf" || n == "cp65001" || n.starts_with("utf-8-") ||
         n.starts_with("utf8-");
}

bool isAscii(std::string_view bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

/// The names to try with iconv_open for a Python encoding name. glibc knows most of Python's
/// spellings, some only without a dash or under another alias; its SHIFT_JIS reads 0x5C as `¥`
/// where Python reads `\`, so Python's shift_jis is glibc's CP932.
std::vector<std::string> iconvNames(std::string_view name) {
  const std::string n = normal(name);
  for (const std::string_view latin1 :
       {"latin-1", "latin1", "latin", "l1", "iso-latin-1", "iso8859", "iso-8859-1", "iso8859-1", "8859", "cp819"})
    if (n == latin1) return {"ISO-8859-1"};
  // A suffix only after the three spellings that Python's tokenizer normalizes (`iso8859-15` is
  // another encoding).
  for (const std::string_view prefix : {"latin-1-", "iso-8859-1-", "iso-latin-1-"})
    if (n.starts_with(prefix)) return {"ISO-8859-1"};
  if (n == "shift-jis" || n == "shiftjis" || n == "sjis" || n == "s-jis") return {"CP932"};
  if (n == "shift-jis-2004" || n == "shiftjis2004" || n == "sjis-2004" || n == "s-jis-2004") return {"SHIFT_JISX0213"};
  if (n == "euc-jis-2004" || n == "eucjis2004" || n == "jisx0213") return {"EUC-JISX0213"};
  if (n == "mac-roman" || n == "macroman") return {"MACINTOSH"};
  std::string dashless = n;
  std::erase(dashless, '-');
  return {n, dashless};
}

/// iconv_open and iconv_close load and unload glibc's gconv modules (dlopen/dlclose). The CLI's
/// workers decode files in parallel; one lock keeps the loader's work in an order that
/// ThreadSanitizer can see (it cannot see the loader's own lock). Conversions, each on its own
/// handle, run unlocked.
std::mutex &iconvLock() {
  static std::mutex lock;
  return lock;
}

struct IconvCloser {
  void operator()(void *cd) const {
    const std::lock_guard<std::mutex> guard(iconvLock());
    iconv_close(static_cast<iconv_t>(cd));
  }
};
using Converter = std::unique_ptr<void, IconvCloser>;

Converter open(const std::string &to, const std::string &from) {
  const std::lock_guard<std::mutex> guard(iconvLock());
  const iconv_t cd = iconv_open(to.c_str(), from.c_str());
  return reinterpret_cast<std::intptr_t>(cd) == -1 ? Converter() : Converter(cd); // iconv_open's (iconv_t)-1
}

std::optional<std::string> convert(const Converter &converter, std::string_view in, std::size_t &bad);

/// Both directions of an encoding iconv knows, and whether it reads ASCII as ASCII (PEP 263: a `\`
/// must stay a line continuation; some of iconv's East Asian and EBCDIC tables and UTF-7 do not).
/// ESC is left out of that probe: ISO-2022 encodings use it to switch, and are decoded then.
struct Codec {
  Converter decoder, encoder;
  bool asciiCompatible = false;
};

std::optional<Codec> codecFor(std::string_view encoding) {
  for (const std::string &name : iconvNames(encoding)) {
    Codec codec{open("UTF-8", name), open(name, "UTF-8")};
    if (!codec.decoder || !codec.encoder) continue;
    std::string ascii = "\t\n\f\r";
    for (char c = 0x20; c < 0x7F; ++c) ascii += c;
    std::size_t bad = 0;
    codec.asciiCompatible = convert(codec.decoder, ascii, bad) == ascii;
    return codec;
  }
  return std::nullopt;
}

/// Known not to read ASCII as ASCII, whether or not this system's iconv has them.
bool knownIncompatible(std::string_view encoding) {
  const std::string n = normal(encoding);
  for (const std::string_view prefix : {"utf-16", "utf-32", "utf16", "utf32", "ucs", "utf-7", "utf7", "cp037", "cp273",
                                        "cp424", "cp500", "cp875", "cp1026", "cp1140", "ebcdic", "hz"})
    if (n.starts_with(prefix)) return true;
  return false;
}

/// Converts all of `in`; on a byte sequence that does not convert, returns nullopt and sets `bad`
/// to its offset in `in`.
std::optional<std::string> convert(const Converter &converter, std::string_view in, std::size_t &bad) {
  const auto cd = static_cast<iconv_t>(converter.get());
  iconv(cd, nullptr, nullptr, nullptr, nullptr); // initial state
  std::string out(in.size() * 2 + 16, '\0');
  char *src = const_cast<char *>(in.data()); // iconv's signature; it does not write through it
  std::size_t srcLeft = in.size(), done = 0;
  for (bool flushing = false;;) {
    char *dst = out.data() + done;
    std::size_t dstLeft = out.size() - done;
    const std::size_t r =
        flushing ? iconv(cd, nullptr, nullptr, &dst, &dstLeft) : iconv(cd, &src, &srcLeft, &dst, &dstLeft);
    done = out.size() - dstLeft;
    if (r != static_cast<std::size_t>(-1)) {
      if (flushing) break;
      flushing = true; // a stateful encoding may still have to return to its initial state
      continue;
    }
    if (errno == E2BIG) {
      out.resize(out.size() * 2);
      continue;
    }
    bad = std::min(in.size() - srcLeft, in.empty() ? 0 : in.size() - 1);
    return std::nullopt;
  }
  out.resize(done);
  return out;
}

std::string hexByte(unsigned char c) {
  const char *digits = "0123456789ABCDEF";
  return std::string("0x") + digits[c >> 4] + digits[c & 15];
}

std::string where(std::string_view bytes, std::size_t offset) {
  const LineIndex lines(bytes);
  return "at byte offset " + std::to_string(offset) + ", line " + std::to_string(lines.lineOf(offset) + 1);
}

} // namespace

std::optional<std::string> declaredEncoding(std::string_view bytes) {
  if (bytes.starts_with("\xEF\xBB\xBF")) bytes.remove_prefix(3);
  std::size_t next = 0;
  const std::string_view first = lineAt(bytes, 0, next);
  std::optional<std::string> name = cookie(first);
  if (!name) {
    // Line 2 counts only after a line 1 that is blank or a comment (as Python's tokenizer reads it).
    std::size_t i = 0;
    while (i < first.size() && blank(first[i])) ++i;
    if (i < first.size() && first[i] != '#') return std::nullopt;
    std::size_t unused = 0;
    name = cookie(lineAt(bytes, next, unused));
  }
  if (!name || isUtf8(*name)) return std::nullopt;
  return name;
}

std::optional<std::string> checkSourceText(std::string_view bytes) {
  if (const auto nul = bytes.find('\0'); nul != std::string_view::npos)
    return "binary file (NUL byte " + where(bytes, nul) + "), skipped";
  if (const auto bad = firstInvalidUtf8(bytes))
    return "not valid UTF-8 (byte " + hexByte(static_cast<unsigned char>(bytes[*bad])) + " " + where(bytes, *bad) +
           "), skipped";
  return std::nullopt;
}

SourceText decodeSourceFrom(std::string &bytes) {
  if (!declaredEncoding(bytes) || bytes.find('\0') != std::string::npos) {
    SourceText out;
    if ((out.error = checkSourceText(bytes))) return out;
    out.text = std::move(bytes);
    bytes.clear();
    return out;
  }
  return decodeSource(bytes);
}

SourceText decodeSource(std::string_view bytes) {
  SourceText out;
  const std::optional<std::string> encoding = declaredEncoding(bytes);
  if (!encoding || bytes.find('\0') != std::string_view::npos) {
    if ((out.error = checkSourceText(bytes))) return out;
    out.text = std::string(bytes);
    return out;
  }
  const std::string declared = "declared encoding `" + *encoding + "`";
  if (bytes.starts_with("\xEF\xBB\xBF")) {
    out.error = "a UTF-8 byte-order mark and the " + declared + " disagree, skipped";
    return out;
  }
  const std::optional<Codec> codec = codecFor(*encoding);
  if (codec ? !codec->asciiCompatible : knownIncompatible(*encoding)) {
    out.error = "the " + declared + " is not ASCII-compatible (PEP 263), skipped";
    return out;
  }
  if (isAscii(bytes) && bytes.find('\x1B') == std::string_view::npos) {
    out.text = std::string(bytes); // the same text in every ASCII-compatible encoding
    out.encoding = *encoding;
    return out;
  }
  if (!codec) {
    out.error = "the " + declared + " is not supported by this system's iconv, skipped";
    return out;
  }
  const Converter &decoder = codec->decoder, &encoder = codec->encoder;
  std::size_t bad = 0;
  std::optional<std::string> text = convert(decoder, bytes, bad);
  if (!text) {
    out.error = "not valid in its " + declared + " (byte " + hexByte(static_cast<unsigned char>(bytes[bad])) + " " +
                where(bytes, bad) + "), skipped";
    return out;
  }
  std::optional<std::string> again = convert(encoder, *text, bad);
  if (!again || *again != bytes) {
    out.error = "the " + declared + " does not give back the same bytes when encoded again, skipped";
    return out;
  }
  out.text = std::move(*text);
  out.encoding = *encoding;
  return out;
}

std::optional<std::string> encodeSource(std::string_view text, std::string_view encoding) {
  if (encoding.empty()) return std::string(text);
  const std::optional<Codec> codec = codecFor(encoding);
  if (codec ? !codec->asciiCompatible : knownIncompatible(encoding)) return std::nullopt;
  if (isAscii(text) && text.find('\x1B') == std::string_view::npos) return std::string(text);
  if (!codec) return std::nullopt;
  std::size_t bad = 0;
  std::optional<std::string> bytes = convert(codec->encoder, text, bad);
  // Only a conversion that reads back as `text` (no approximated character) is one.
  if (!bytes || convert(codec->decoder, *bytes, bad) != text) return std::nullopt;
  return bytes;
}

} // namespace asyncfix
