#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "asyncfix/line_index.h"
#include "asyncfix/utf8.h"

using namespace asyncfix;

TEST_CASE("LineIndex converts é, €, CJK and emoji in every encoding", "[line_index]") {
  // é = 2 bytes/1 UTF-16 unit, € = 3/1, 中 = 3/1, 😀 = 4 bytes/2 UTF-16 units (a surrogate pair).
  const std::string text = "ab\né€中😀x = 1\nlast";
  const LineIndex idx(text);
  REQUIRE(idx.lineCount() == 3);
  const std::size_t x = text.find('x');
  CHECK(idx.position(x, PositionEncoding::Utf8) == Position{1, 12});
  CHECK(idx.position(x, PositionEncoding::Utf16) == Position{1, 5});
  CHECK(idx.position(x, PositionEncoding::Utf32) == Position{1, 4});
  for (auto enc : {PositionEncoding::Utf8, PositionEncoding::Utf16, PositionEncoding::Utf32}) {
    // Every character boundary round-trips.
    for (std::size_t off = 0; off <= text.size(); ++off) {
      if (off < text.size() && (static_cast<unsigned char>(text[off]) & 0xC0) == 0x80) continue;
      INFO("offset " << off);
      CHECK(idx.offset(idx.position(off, enc), enc) == off);
    }
  }
  // Half a surrogate pair maps to the emoji's start; a column past the end to the line end.
  const std::size_t emoji = text.find("😀");
  CHECK(idx.offset({1, 4}, PositionEncoding::Utf16) == emoji);
  CHECK(idx.offset({1, 3}, PositionEncoding::Utf16) == emoji);
  CHECK(idx.offset({1, 99}, PositionEncoding::Utf32) == text.find("\nlast"));
  CHECK(idx.offset({9, 0}, PositionEncoding::Utf32) == text.size());
  // An offset inside a character maps to the character's start.
  CHECK(idx.position(text.find("€") + 1, PositionEncoding::Utf16) == Position{1, 1});
}

TEST_CASE("LineIndex line terminators: LF, CRLF, lone CR", "[line_index]") {
  const std::string text = "a\r\nb\rc\nd";
  const LineIndex idx(text);
  REQUIRE(idx.lineCount() == 4);
  CHECK(idx.lineStart(1) == 3);
  CHECK(idx.lineEnd(0) == 1);
  CHECK(idx.lineStart(2) == 5);
  CHECK(idx.lineStart(3) == 7);
  CHECK(idx.lineEnd(3) == 8);
  CHECK(idx.lineOf(2) == 0); // the \n of \r\n belongs to line 0
  CHECK(idx.position(8, PositionEncoding::Utf8) == Position{3, 1});
  const LineIndex trailing("x\n");
  CHECK(trailing.lineCount() == 2);
  CHECK(trailing.position(2, PositionEncoding::Utf32) == Position{1, 0});
}

TEST_CASE("LineIndex hides a UTF-8 BOM from line 0's columns", "[line_index]") {
  const std::string text = "\xEF\xBB\xBFx = 1\ny";
  const LineIndex idx(text);
  CHECK(idx.hasBom());
  CHECK(idx.position(3, PositionEncoding::Utf16) == Position{0, 0});
  CHECK(idx.position(4, PositionEncoding::Utf32) == Position{0, 1});
  CHECK(idx.position(0, PositionEncoding::Utf8) == Position{0, 0});
  CHECK(idx.offset({0, 0}, PositionEncoding::Utf8) == 3);
  CHECK(idx.lineStart(0) == 3);
}

TEST_CASE("LineIndex: ASCII lines take the fast path, others the walk, with the same answers", "[line_index]") {
  const std::string text = "abc\n\xEF\xBB\xBF\xC3\xA9x\nplain line\r\n\xF0\x9F\x98\x80!\n";
  const LineIndex idx(text);
  for (auto enc : {PositionEncoding::Utf8, PositionEncoding::Utf16, PositionEncoding::Utf32})
    for (std::size_t off = 0; off <= text.size(); ++off) {
      if (off < text.size() && (static_cast<unsigned char>(text[off]) & 0xC0) == 0x80) continue;
      if (off > 0 && text[off - 1] == '\r' && text[off] == '\n') continue; // inside a CRLF
      INFO("offset " << off);
      CHECK(idx.offset(idx.position(off, enc), enc) == off);
    }
  CHECK(idx.position(text.find("line"), PositionEncoding::Utf16) == Position{2, 6});
  CHECK(idx.offset({2, 99}, PositionEncoding::Utf8) == text.find("\r\n"));
  // A long ASCII line with many positions asked for: each answer is direct.
  const std::string wide(200000, 'x');
  const LineIndex w(wide);
  CHECK(w.position(150000, PositionEncoding::Utf16) == Position{0, 150000});
}

TEST_CASE("LineIndex survives malformed UTF-8 and empty text", "[line_index]") {
  const std::string text = "a\xff\xc3(b\n\xe2\x82";
  const LineIndex idx(text);
  CHECK(idx.position(4, PositionEncoding::Utf16) == Position{0, 4}); // one unit per bad byte
  CHECK(idx.offset({0, 4}, PositionEncoding::Utf16) == 4);
  CHECK(idx.position(text.size(), PositionEncoding::Utf32) == Position{1, 2});
  const LineIndex empty("");
  CHECK(empty.lineCount() == 1);
  CHECK(empty.position(5, PositionEncoding::Utf8) == Position{0, 0});
  CHECK(empty.offset({3, 3}, PositionEncoding::Utf8) == 0);
}

TEST_CASE("UTF-8 validation follows RFC 3629", "[utf8]") {
  CHECK_FALSE(firstInvalidUtf8("plain ascii\n"));
  CHECK_FALSE(firstInvalidUtf8("é€中😀"));
  CHECK(firstInvalidUtf8("ab\x80") == 2u);           // stray continuation byte
  CHECK(firstInvalidUtf8("a\xC0\xAF") == 1u);        // overlong '/'
  CHECK(firstInvalidUtf8("a\xE0\x80\xAF") == 1u);    // overlong, 3 bytes
  CHECK(firstInvalidUtf8("\xED\xA0\x80") == 0u);     // a surrogate, U+D800
  CHECK(firstInvalidUtf8("\xF4\x90\x80\x80") == 0u); // above U+10FFFF
  CHECK(firstInvalidUtf8("ok\xE2\x82") == 2u);       // truncated at the end
  CHECK(firstInvalidUtf8("latin-1 caf\xE9!") == 11u);
  CHECK(utf8Decode("€", 0) == U'€');
  CHECK(utf8Decode("😀", 0) == U'😀');
  CHECK(utf8Decode("\xFF", 0) == U'\uFFFD');
  CHECK(utf8SequenceLength("中", 0) == 3);
}

TEST_CASE("LineIndex::update equals a fresh index after every random edit", "[line_index]") {
  std::mt19937 rng(29);
  const std::vector<std::string> pieces = {"a", "bc", "\n", "\r", "\r\n", "é", "😀", " ", "\xEF\xBB\xBF", "\xFF"};
  const auto same = [](const LineIndex &a, const LineIndex &b, const std::string &text) {
    REQUIRE(a.lineCount() == b.lineCount());
    REQUIRE(a.hasBom() == b.hasBom());
    for (std::uint32_t line = 0; line < a.lineCount(); ++line) {
      REQUIRE(a.lineStart(line) == b.lineStart(line));
      REQUIRE(a.lineEnd(line) == b.lineEnd(line));
    }
    for (std::size_t off = 0; off <= text.size(); ++off)
      REQUIRE(a.position(off, PositionEncoding::Utf16) == b.position(off, PositionEncoding::Utf16));
  };
  for (int round = 0; round < 300; ++round) {
    std::string text;
    for (auto k = rng() % 30; k > 0; --k) text += pieces[rng() % pieces.size()];
    LineIndex index(text);
    for (int step = 0; step < 20; ++step) {
      const std::size_t start = text.empty() ? 0 : rng() % (text.size() + 1);
      const std::size_t end = start + (rng() % 3 == 0 ? rng() % (text.size() - start + 1) : 0);
      std::string insert;
      for (auto k = rng() % 3; k > 0; --k) insert += pieces[rng() % pieces.size()];
      INFO("text " << text << " edit " << start << ".." << end << " -> " << insert);
      text.replace(start, end - start, insert);
      index.update(text, start, end, start + insert.size());
      same(index, LineIndex(text), text);
    }
  }
}

TEST_CASE("LineIndex::update moves every later line start, however many", "[line_index]") {
  // The starts after an edit move in blocks of four (two without AVX2) and one by one after
  // them: every count of later lines from 0 to 40, edits that grow and shrink the text.
  for (std::size_t lines = 0; lines <= 40; ++lines) {
    std::string text = "head\n";
    for (std::size_t i = 0; i < lines; ++i) text += (i % 3 == 0 ? "x\r\n" : "line é\n");
    LineIndex index(text);
    for (const auto &[at, cut, insert] : {std::tuple<std::size_t, std::size_t, std::string>{2, 0, "abc"},
                                          {2, 3, ""},
                                          {4, 0, "\n\n"},
                                          {4, 2, ""},
                                          {1, 1, "a\r"}}) {
      INFO(lines << " lines, edit at " << at << " of " << cut << " bytes by " << insert.size());
      text.replace(at, cut, insert);
      index.update(text, at, at + cut, at + insert.size());
      const LineIndex fresh(text);
      REQUIRE(index.lineCount() == fresh.lineCount());
      for (std::uint32_t line = 0; line < fresh.lineCount(); ++line) {
        REQUIRE(index.lineStart(line) == fresh.lineStart(line));
        REQUIRE(index.lineEnd(line) == fresh.lineEnd(line));
      }
    }
  }
}

TEST_CASE("LineIndex equals a reference on random texts, across 16-byte blocks", "[line_index]") {
  // Line breaks and non-ASCII characters at every alignment: the index scans blocks of bytes.
  std::mt19937 rng(20261202);
  const std::vector<std::string> pieces = {"a", "0123456789abcdef", "\n", "\r", "\r\n", "é", "€", "😀", " ", "\xFF"};
  for (int round = 0; round < 500; ++round) {
    std::string text = rng() % 4 == 0 ? "\xEF\xBB\xBF" : "";
    for (auto k = rng() % 40; k > 0; --k) text += pieces[rng() % pieces.size()];
    // The reference: lines end at "\n", "\r\n" or a lone "\r"; a column counts UTF-16 units
    // (a malformed byte is one), the BOM none.
    std::vector<std::size_t> starts{text.starts_with("\xEF\xBB\xBF") ? 3u : 0u};
    for (std::size_t i = starts[0]; i < text.size(); ++i)
      if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')))
        starts.push_back(i + 1);
    const LineIndex index(text);
    INFO("round " << round << ": " << text);
    REQUIRE(index.lineCount() == starts.size());
    for (std::uint32_t line = 0; line < starts.size(); ++line) {
      REQUIRE(index.lineStart(line) == starts[line]);
      std::uint32_t column = 0;
      for (std::size_t i = starts[line]; i <= text.size() && (line + 1 == starts.size() || i < starts[line + 1]);) {
        if (text[i] == '\n' || text[i] == '\r') break;
        CHECK(index.position(i, PositionEncoding::Utf16) == Position{line, column});
        if (i == text.size()) break;
        const std::size_t length = utf8SequenceLength(text, i);
        column += length == 4 ? 2 : 1;
        i += length == 0 ? 1 : length;
      }
    }
  }
}
