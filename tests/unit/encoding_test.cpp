#include <catch2/catch.hpp>

#include <optional>
#include <random>
#include <string>

#include "asyncfix/encoding.h"
#include "asyncfix/line_index.h"
#include "asyncfix/linter.h"
#include "asyncfix/report.h"
#include "asyncfix/utf8.h"

using namespace asyncfix;

TEST_CASE("declaredEncoding reads PEP 263 declarations as Python does", "[encoding]") {
  CHECK(declaredEncoding("# -*- coding: latin-1 -*-\nx = 1\n") == "latin-1");
  CHECK(declaredEncoding("#!/usr/bin/env python\n# coding=cp1252\n") == "cp1252");
  CHECK(declaredEncoding("\n  # vim: set fileencoding=koi8-r :\n") == "koi8-r");
  CHECK(declaredEncoding("#!/usr/bin/python\r# coding: latin-1\r") == "latin-1"); // CR-only lines
  CHECK_FALSE(declaredEncoding("import os\n# coding: latin-1\n"));                // line 2 after code: not read
  CHECK_FALSE(declaredEncoding("\xEF\xBB\xBF  import os\n# coding: latin-1\n"));
  CHECK(declaredEncoding(" \f\t\n# coding: latin-1\n") == "latin-1"); // line 2 after a blank line 1
  CHECK_FALSE(declaredEncoding("#\n#\n# coding: latin-1\n"));         // line 3
  CHECK_FALSE(declaredEncoding("# coding: utf-8\n"));
  CHECK_FALSE(declaredEncoding("# -*- coding: UTF8 -*-\n"));
  CHECK_FALSE(declaredEncoding("# coding: u8\n"));
  CHECK_FALSE(declaredEncoding("# coding: cp65001\n"));
  CHECK_FALSE(declaredEncoding("x = '# coding: latin-1'\n")); // not a comment line
  CHECK_FALSE(declaredEncoding("# coding latin-1\n"));
}

TEST_CASE("decodeSource decodes a declared encoding and keeps UTF-8 as it is", "[encoding]") {
  const std::string latin1 = "# -*- coding: latin-1 -*-\n# caf\xE9\nx = y.cuda(async=True)\n";
  const SourceText decoded = decodeSource(latin1);
  REQUIRE_FALSE(decoded.error);
  CHECK(decoded.encoding == "latin-1");
  CHECK(decoded.text == "# -*- coding: latin-1 -*-\n# caf\xC3\xA9\nx = y.cuda(async=True)\n");
  CHECK(encodeSource(decoded.text, decoded.encoding) == latin1);

  const SourceText koi8 = decodeSource("# coding: koi8-r\ns = '\xF0\xD2\xC9'\n"); // "При"
  REQUIRE_FALSE(koi8.error);
  CHECK(koi8.text == "# coding: koi8-r\ns = '\xD0\x9F\xD1\x80\xD0\xB8'\n");

  // Python's shift_jis reads 0x5C as a backslash (here a line continuation), as ASCII.
  const SourceText sjis = decodeSource("# coding: shift_jis\ns = '\x82\xA0' + \\\n  '~'\n"); // "あ"
  REQUIRE_FALSE(sjis.error);
  CHECK(sjis.text == "# coding: shift_jis\ns = '\xE3\x81\x82' + \\\n  '~'\n");

  // Python's spellings of Latin-1 that iconv does not know under that name.
  for (const char *name : {"latin", "iso8859", "iso-8859-1-unix", "L1"}) {
    const SourceText latin = decodeSource(std::string("# coding: ") + name + "\ns = '\xE9'\n");
    REQUIRE_FALSE(latin.error);
    CHECK(latin.text.ends_with("s = '\xC3\xA9'\n"));
  }

  // Other ISO 8859 parts are not Latin-1: 0xA6 is `Š` in ISO 8859-15.
  const SourceText latin9 = decodeSource("# coding: iso8859-15\n\xA6 = 1\n");
  REQUIRE_FALSE(latin9.error);
  CHECK(latin9.text == "# coding: iso8859-15\n\xC5\xA0 = 1\n");

  // ISO-2022-JP is 7-bit: its escapes are decoded, not taken for ASCII ("唖").
  const SourceText jis = decodeSource("# coding: iso-2022-jp\ns = \"\x1B$B0\"\x1B(B\"\n");
  REQUIRE_FALSE(jis.error);
  CHECK(jis.text == "# coding: iso-2022-jp\ns = \"\xE5\x94\x96\"\n");
  CHECK(encodeSource(jis.text, jis.encoding) == "# coding: iso-2022-jp\ns = \"\x1B$B0\"\x1B(B\"\n");

  // An all-ASCII file reads the same in any ASCII-compatible encoding, known to iconv or not.
  const SourceText ascii = decodeSource("# coding: klingon\nx = y.cuda(async=True)\n");
  REQUIRE_FALSE(ascii.error);
  CHECK(ascii.text == "# coding: klingon\nx = y.cuda(async=True)\n");
  CHECK(encodeSource("x = y.cuda(non_blocking=True)\n", "klingon") == "x = y.cuda(non_blocking=True)\n");

  const SourceText utf8 = decodeSource("s = 'caf\xC3\xA9'\n");
  REQUIRE_FALSE(utf8.error);
  CHECK(utf8.encoding.empty());
  CHECK(utf8.text == "s = 'caf\xC3\xA9'\n");
}

TEST_CASE("decodeSource says why bytes cannot be read", "[encoding]") {
  const auto error = [](const std::string &bytes) { return decodeSource(bytes).error.value_or(""); };
  CHECK(error("# coding: cp1252\ns = '\x81'\n") ==
        "not valid in its declared encoding `cp1252` (byte 0x81 at byte offset 22, line 2), skipped");
  CHECK(error("# coding: klingon\ns = '\xE9'\n") ==
        "the declared encoding `klingon` is not supported by this system's iconv, skipped");
  CHECK(error("# coding: cp037\ns = '\xE9'\n") ==
        "the declared encoding `cp037` is not ASCII-compatible (PEP 263), skipped");
  // Not ASCII-compatible, even for a file of ASCII bytes (`+b` is a shift in UTF-7).
  CHECK(error("# coding: utf-7\nx = a+b\n") ==
        "the declared encoding `utf-7` is not ASCII-compatible (PEP 263), skipped");
  CHECK(error("# coding: utf-16\n") == "the declared encoding `utf-16` is not ASCII-compatible (PEP 263), skipped");
  CHECK(error("\xEF\xBB\xBF# coding: latin-1\n").find("byte-order mark") != std::string::npos);
  CHECK(error("s = 'caf\xE9'\n").starts_with("not valid UTF-8 (byte 0xE9 at byte offset 8, line 1)"));
  CHECK(error(std::string("# coding: latin-1\n\0", 19)).starts_with("binary file (NUL byte"));
  // checkSourceText stays the UTF-8 check: decodeSource is what reads other encodings.
  CHECK(checkSourceText("# coding: latin-1\ns = '\xE9'\n").value_or("").starts_with("not valid UTF-8"));
}

TEST_CASE("encodeSource refuses a character the encoding lacks", "[encoding]") {
  CHECK(encodeSource("s = '\xE2\x82\xAC'\n", "latin-1") == std::nullopt); // the euro sign
  CHECK(encodeSource("s = '\xE2\x82\xAC'\n", "cp1252") == "s = '\x80'\n");
  CHECK(encodeSource("plain", "") == "plain");
  CHECK(encodeSource("x = a+b\n", "utf-7") == std::nullopt);
}

TEST_CASE("a latin-1 file through decodeSource, the Linter and encodeSource", "[encoding][api]") {
  const Linter linter;
  const std::string bytes = "# -*- coding: latin-1 -*-\n# caf\xE9\ns = '\xE9t\xE9'; x = y.cuda(async=True)\n";
  const SourceText source = decodeSource(bytes);
  REQUIRE_FALSE(source.error);
  const Report report = linter.lint(source.text, "legacy.py");
  REQUIRE(report.ok());
  REQUIRE(report.diagnostics().size() == 1);
  const Position at = report.lines().position(report.diagnostics()[0].start, PositionEncoding::Utf32);
  CHECK(at == Position{2, 22}); // counted in characters of the decoded line
  const FixResult fixed = linter.fix(source.text, "legacy.py");
  REQUIRE_FALSE(fixed.error);
  CHECK(encodeSource(fixed.text, source.encoding) ==
        "# -*- coding: latin-1 -*-\n# caf\xE9\ns = '\xE9t\xE9'; x = y.cuda(non_blocking=True)\n");
  // The Linter itself takes UTF-8: text already decoded keeps its declaration and is not decoded
  // again (the column stays right, and it is not refused as invalid cp1252).
  const Report again = linter.lint(source.text, "legacy.py");
  CHECK(again.lines().position(again.diagnostics()[0].start, PositionEncoding::Utf32) == Position{2, 22});
  CHECK(linter.lint("# coding: cp1252\ns = '\xC2\x81'; y.cuda(async=True)\n", "u.py").ok());
}

TEST_CASE("decodeSourceFrom takes a UTF-8 file's bytes over and leaves the others", "[encoding]") {
  for (const std::string &input : {std::string("s = 'caf\xC3\xA9'\n"), std::string("# coding: latin-1\ns = '\xE9'\n"),
                                   std::string("# coding: klingon\nx = 1\n"), std::string("x = '\xFF'\n"),
                                   std::string("x = 1\0\n", 7), std::string()}) {
    INFO(input);
    const SourceText expected = decodeSource(input);
    std::string bytes = input;
    const SourceText got = decodeSourceFrom(bytes);
    CHECK(got.text == expected.text);
    CHECK(got.encoding == expected.encoding);
    CHECK(got.error == expected.error);
    const bool taken = !expected.error && expected.encoding.empty();
    CHECK(bytes == (taken ? std::string() : input));
  }
}

TEST_CASE("firstInvalidUtf8 agrees with a byte-at-a-time reference", "[encoding]") {
  // The scan skips ASCII 32 and 8 bytes at a time: a bad byte anywhere in or after such a run,
  // at every alignment, must still be the one reported.
  const auto reference = [](std::string_view s) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < s.size();) {
      const std::size_t n = utf8SequenceLength(s, i);
      if (n == 0) return i;
      i += n;
    }
    return std::nullopt;
  };
  const std::string pieces[] = {"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xFF", "\xC3", "\xED\xA0\x80", "\x80"};
  std::mt19937 random(7);
  for (int round = 0; round < 3000; ++round) {
    std::string s(random() % 100, 'a');
    for (int k = static_cast<int>(random() % 3); k > 0 && !s.empty(); --k)
      s.insert(random() % (s.size() + 1), pieces[random() % std::size(pieces)]);
    INFO("round " << round << ", " << s.size() << " bytes");
    CHECK(firstInvalidUtf8(s) == reference(s));
  }
}

TEST_CASE("checkSourceText's one pass says what the NUL search and the UTF-8 check said", "[encoding]") {
  // The two passes it replaced, kept as the reference: a NUL anywhere first, then invalid UTF-8.
  const auto where = [](std::string_view s, std::size_t at) {
    return "at byte offset " + std::to_string(at) + ", line " + std::to_string(LineIndex(s).lineOf(at) + 1);
  };
  const auto reference = [&](std::string_view s) -> std::optional<std::string> {
    if (const auto nul = s.find('\0'); nul != std::string_view::npos)
      return "binary file (NUL byte " + where(s, nul) + "), skipped";
    if (const auto bad = firstInvalidUtf8(s)) {
      const char *digits = "0123456789ABCDEF";
      const auto c = static_cast<unsigned char>(s[*bad]);
      return std::string("not valid UTF-8 (byte 0x") + digits[c >> 4] + digits[c & 15] + " " + where(s, *bad) +
             "), skipped";
    }
    return std::nullopt;
  };
  CHECK(checkSourceText(std::string("x = '\xFF'\ny = 1\0\n", 15)) ==
        "binary file (NUL byte at byte offset 13, line 2), skipped"); // a NUL after invalid UTF-8 still wins
  CHECK(checkSourceText("x = 1\n\n  '\xE9'\n") == "not valid UTF-8 (byte 0xE9 at byte offset 10, line 3), skipped");
  // Random texts: long ASCII runs (the blocks the pass skips, at every alignment: up to 700
  // bytes, five of AVX2's 128-byte blocks) with NULs, well-formed and malformed sequences, and
  // random bytes, anywhere.
  const std::string pieces[] = {std::string(1, '\0'),
                                "\xC3\xA9",
                                "\xE2\x82\xAC",
                                "\xF0\x9F\x98\x80",
                                "\xFF",
                                "\xC3",
                                "\xED\xA0\x80",
                                "\x80",
                                "\xF4\x90\x80\x80",
                                "\n",
                                "\x7F",
                                "\x01"};
  std::mt19937 random(29);
  for (int round = 0; round < 20000; ++round) {
    std::string s(random() % (round % 2 == 0 ? 300 : 700), 'a');
    const int kind = static_cast<int>(random() % 4);
    if (kind == 3) { // random bytes throughout, mostly ASCII
      for (char &c : s) c = static_cast<char>(random() % 8 == 0 ? random() % 256 : 1 + random() % 127);
    }
    for (int k = kind == 0 ? 0 : static_cast<int>(random() % 4); k > 0; --k)
      s.insert(random() % (s.size() + 1), pieces[random() % std::size(pieces)]);
    INFO("round " << round << ", " << s.size() << " bytes");
    REQUIRE(checkSourceText(s) == reference(s));
  }
}
