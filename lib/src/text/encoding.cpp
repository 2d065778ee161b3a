#include "asyncfix/encoding.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#if defined(_WIN32)
#include <windows.h>
#else
#include <iconv.h>
#endif

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ASYNCFIX_ENCODING_AVX2 1
#endif

#include "asyncfix/line_index.h"
#include "asyncfix/report.h"
#include "asyncfix/utf8.h"
#include "text/cpu.h"

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

// The converter: one platform's way from an encoding to UTF-8 and back (`Converter`, open(),
// convert()). Everything else in this file is the same everywhere.
#if defined(_WIN32)

/// Windows has no iconv: its own code pages (MultiByteToWideChar and WideCharToMultiByte, through
/// UTF-16), for the encodings of this table (docs/windows.md lists them). Python's names, as
/// normal() spells them, and the code page of each.
struct CodePageName {
  std::string_view name;
  unsigned codePage;
};
constexpr CodePageName kCodePages[] = {
    {"utf-8", 65001},     {"latin-1", 28591},     {"iso-8859-1", 28591},  {"iso-8859-2", 28592},
    {"latin2", 28592},    {"iso-8859-3", 28593},  {"iso-8859-4", 28594},  {"iso-8859-5", 28595},
    {"cyrillic", 28595},  {"iso-8859-6", 28596},  {"arabic", 28596},      {"iso-8859-7", 28597},
    {"greek", 28597},     {"iso-8859-8", 28598},  {"hebrew", 28598},      {"iso-8859-9", 28599},
    {"latin5", 28599},    {"iso-8859-13", 28603}, {"iso-8859-15", 28605}, {"latin9", 28605},
    {"cp1250", 1250},     {"windows-1250", 1250}, {"cp1251", 1251},       {"windows-1251", 1251},
    {"cp1252", 1252},     {"windows-1252", 1252}, {"cp1253", 1253},       {"windows-1253", 1253},
    {"cp1254", 1254},     {"windows-1254", 1254}, {"cp1255", 1255},       {"windows-1255", 1255},
    {"cp1256", 1256},     {"windows-1256", 1256}, {"cp1257", 1257},       {"windows-1257", 1257},
    {"cp1258", 1258},     {"windows-1258", 1258}, {"cp437", 437},         {"cp850", 850},
    {"cp852", 852},       {"cp866", 866},         {"koi8-r", 20866},      {"koi8-u", 21866},
    {"mac-roman", 10000}, {"macroman", 10000},    {"cp932", 932},         {"shift-jis", 932},
    {"shiftjis", 932},    {"sjis", 932},          {"s-jis", 932},         {"euc-jp", 20932},
    {"cp936", 936},       {"gbk", 936},           {"gb2312", 936},        {"cp949", 949},
    {"euc-kr", 949},      {"uhc", 949},           {"cp950", 950},         {"big5", 950},
};

/// What the messages call the converter.
constexpr std::string_view kConverter = "code pages";

unsigned codePageOf(std::string_view name) {
  for (const CodePageName &entry : kCodePages)
    if (entry.name == name) return entry.codePage;
  return 0;
}

/// The names to look up for a Python encoding name: Latin-1's many spellings as one.
std::vector<std::string> converterNames(std::string_view name) {
  const std::string n = normal(name);
  for (const std::string_view latin1 :
       {"latin-1", "latin1", "latin", "l1", "iso-latin-1", "iso8859", "iso-8859-1", "iso8859-1", "8859", "cp819"})
    if (n == latin1) return {"latin-1"};
  for (const std::string_view prefix : {"latin-1-", "iso-8859-1-", "iso-latin-1-"})
    if (n.starts_with(prefix)) return {"latin-1"};
  std::string dashed = n; // iso8859-15 → iso-8859-15
  if (dashed.starts_with("iso8859-")) dashed.insert(3, "-");
  return {n, dashed};
}

/// From one code page to another; empty when either is unknown.
struct Converter {
  unsigned from = 0, to = 0;
  explicit operator bool() const { return from != 0 && to != 0; }
};

Converter open(const std::string &to, const std::string &from) {
  return Converter{from == "UTF-8" ? 65001u : codePageOf(from), to == "UTF-8" ? 65001u : codePageOf(to)};
}

/// `in` in UTF-16, or nullopt when some byte sequence is not one of `codePage`'s.
std::optional<std::wstring> toWide(unsigned codePage, std::string_view in) {
  if (in.empty()) return std::wstring();
  const int size = static_cast<int>(in.size());
  const int n = ::MultiByteToWideChar(codePage, MB_ERR_INVALID_CHARS, in.data(), size, nullptr, 0);
  if (n <= 0) return std::nullopt;
  std::wstring out(static_cast<std::size_t>(n), L'\0');
  ::MultiByteToWideChar(codePage, MB_ERR_INVALID_CHARS, in.data(), size, out.data(), n);
  return out;
}

/// `in` in `codePage`, or nullopt when a character has no exact spelling there (no best fit).
std::optional<std::string> fromWide(unsigned codePage, std::wstring_view in) {
  if (in.empty()) return std::string();
  const int size = static_cast<int>(in.size());
  BOOL defaulted = FALSE;
  const DWORD flags = codePage == 65001 ? WC_ERR_INVALID_CHARS : WC_NO_BEST_FIT_CHARS;
  BOOL *used = codePage == 65001 ? nullptr : &defaulted; // UTF-8 takes no default character
  const int n = ::WideCharToMultiByte(codePage, flags, in.data(), size, nullptr, 0, nullptr, used);
  if (n <= 0 || defaulted) return std::nullopt;
  std::string out(static_cast<std::size_t>(n), '\0');
  ::WideCharToMultiByte(codePage, flags, in.data(), size, out.data(), n, nullptr, used);
  return out;
}

/// Converts all of `in`; on a byte sequence that does not convert, returns nullopt and sets `bad`
/// to its offset in `in` (the end of the longest prefix that converts, found by bisection).
std::optional<std::string> convert(const Converter &converter, std::string_view in, std::size_t &bad) {
  const auto once = [&](std::string_view part) -> std::optional<std::string> {
    const std::optional<std::wstring> wide = toWide(converter.from, part);
    return wide ? fromWide(converter.to, *wide) : std::nullopt;
  };
  if (std::optional<std::string> out = once(in)) return out;
  std::size_t good = 0, failing = in.size(); // once(in[0, good)) converts, once(in[0, failing)) does not
  while (failing - good > 1) {
    const std::size_t mid = good + (failing - good) / 2;
    (once(in.substr(0, mid)) ? good : failing) = mid;
  }
  bad = std::min(good, in.empty() ? 0 : in.size() - 1);
  return std::nullopt;
}

#else

constexpr std::string_view kConverter = "iconv";

/// The names to try with iconv_open for a Python encoding name. glibc knows most of Python's
/// spellings, some only without a dash or under another alias; its SHIFT_JIS reads 0x5C as `¥`
/// where Python reads `\`, so Python's shift_jis is glibc's CP932.
std::vector<std::string> converterNames(std::string_view name) {
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

#endif

/// Both directions of an encoding iconv knows, and whether it reads ASCII as ASCII (PEP 263: a `\`
/// must stay a line continuation; some of iconv's East Asian and EBCDIC tables and UTF-7 do not).
/// ESC is left out of that probe: ISO-2022 encodings use it to switch, and are decoded then.
struct Codec {
  Converter decoder, encoder;
  bool asciiCompatible = false;
};

std::optional<Codec> codecFor(std::string_view encoding) {
  for (const std::string &name : converterNames(encoding)) {
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

std::string hexByte(unsigned char c) {
  const char *digits = "0123456789ABCDEF";
  return std::string("0x") + digits[c >> 4] + digits[c & 15];
}

#if defined(ASYNCFIX_ENCODING_AVX2)
/// skipPlainAscii's blocks of 128 bytes with AVX2, as far as they stay in the text: `i` is left
/// at the first block that holds a NUL or a non-ASCII byte (or too near the end for one).
__attribute__((target("avx2"))) void skipPlainBlocksAvx2(const char *s, std::size_t n, std::size_t &i) {
  // A byte is plain (1–0x7F) exactly when it is greater than zero as a signed byte. (No lambda:
  // it would not inherit the target.)
  const __m256i zero = _mm256_setzero_si256();
  for (; i + 128 <= n; i += 128) {
    const __m256i a = _mm256_cmpgt_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i)), zero);
    const __m256i b = _mm256_cmpgt_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 32)), zero);
    const __m256i c = _mm256_cmpgt_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 64)), zero);
    const __m256i d = _mm256_cmpgt_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 96)), zero);
    if (_mm256_movemask_epi8(_mm256_and_si256(_mm256_and_si256(a, b), _mm256_and_si256(c, d))) != -1) return;
  }
}
#endif

/// The first offset at or after `i` where `bytes` holds a NUL or a non-ASCII byte (or its size):
/// the runs of plain ASCII in between are passed over 128 bytes at a time with AVX2, 64 with
/// SSE2, else 8.
std::size_t skipPlainAscii(std::string_view bytes, std::size_t i) {
  const char *s = bytes.data();
  const std::size_t n = bytes.size();
#if defined(ASYNCFIX_ENCODING_AVX2)
  if (cpuHasAvx2()) skipPlainBlocksAvx2(s, n, i);
#endif
#if defined(__SSE2__)
  // A byte is plain (1–0x7F) exactly when it is greater than zero as a signed byte.
  const __m128i zero = _mm_setzero_si128();
  const auto plain = [&](std::size_t at) {
    return _mm_cmpgt_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i *>(s + at)), zero);
  };
  for (; i + 64 <= n; i += 64) {
    const __m128i all =
        _mm_and_si128(_mm_and_si128(plain(i), plain(i + 16)), _mm_and_si128(plain(i + 32), plain(i + 48)));
    if (_mm_movemask_epi8(all) != 0xFFFF) break;
  }
  for (; i + 16 <= n; i += 16) {
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(plain(i)));
    if (mask != 0xFFFF) return i + static_cast<std::size_t>(__builtin_ctz(~mask));
  }
#else
  // Every byte in 1–0x7F: subtracting one from each borrows from none and sets no high bit.
  constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, s + i, 8);
    if (((word - ones) | word) & highs) break;
  }
#endif
  while (i<n &&static_cast<signed char>(s[i])> 0) ++i;
  return i;
}

/// The first byte of `bytes` that is a NUL or does not start a well-formed UTF-8 sequence (as
/// utf8SequenceLength() reads it); nullopt when there is none. One pass for both questions.
std::optional<std::size_t> firstNulOrInvalidUtf8(std::string_view bytes) {
  for (std::size_t i = skipPlainAscii(bytes, 0); i < bytes.size(); i = skipPlainAscii(bytes, i)) {
    if (bytes[i] == '\0') return i;
    const std::size_t n = utf8SequenceLength(bytes, i); // a non-ASCII byte: a sequence starts here
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

std::string where(std::string_view bytes, std::size_t offset) {
  const LineIndex lines(bytes);
  return "at byte offset " + std::to_string(offset) + ", line " + std::to_string(lines.lineOf(offset) + 1);
}

} // namespace

std::optional<std::string> declaredEncoding(std::string_view bytes) {
  if (bytes.starts_with("\xEF\xBB\xBF")) bytes.remove_prefix(3);
  // Most files: line 1 is code, which holds no cookie and makes line 2 not count either (asked
  // of every file of a run: no scan of the line to its end for that).
  std::size_t start = 0;
  while (start < bytes.size() && blank(bytes[start])) ++start;
  if (start < bytes.size() && bytes[start] != '#' && bytes[start] != '\n' && bytes[start] != '\r') return std::nullopt;
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
  const std::optional<std::size_t> first = firstNulOrInvalidUtf8(bytes);
  if (!first) return std::nullopt;
  // A NUL anywhere makes it a binary file, also after invalid UTF-8.
  if (const auto nul = bytes.find('\0', *first); nul != std::string_view::npos)
    return "binary file (NUL byte " + where(bytes, nul) + "), skipped";
  return "not valid UTF-8 (byte " + hexByte(static_cast<unsigned char>(bytes[*first])) + " " + where(bytes, *first) +
         "), skipped";
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
    out.error = "the " + declared + " is not supported by this system's " + std::string(kConverter) + ", skipped";
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
