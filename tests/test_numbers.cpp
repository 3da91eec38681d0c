// The one number formatter and the one whole-field parser (src/common/numbers.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>

#include "common/errors.hpp"
#include "common/numbers.hpp"

namespace zoneode {
namespace {

std::uint64_t bits_of(double value) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

TEST(Numbers, Format17gIsPrintfAndNanHasOneSpelling) {
  EXPECT_EQ(format_number_17g(0.1), "0.10000000000000001");
  EXPECT_EQ(format_number_17g(-4737.00217 / 1000.0), "-4.7370021699999993");
  EXPECT_EQ(format_number_17g(1e300), "1.0000000000000001e+300");
  EXPECT_EQ(format_number_17g(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(format_number_17g(-std::numeric_limits<double>::quiet_NaN()), "nan");
}

TEST(Numbers, FormatIsShortest) {
  EXPECT_EQ(format_number(0.1), "0.1");
  EXPECT_EQ(format_number(1e-5), "1e-05");
  EXPECT_EQ(format_number(3.0), "3");
}

TEST(Numbers, EveryFormatReadsBackBitExact) {
  const double values[] = {0.1, -0.0, 1.0 / 3.0, 6.02214076e23, -8.0713180600000001, 4.9406564584124654e-324,
                           2.2250738585072009e-308, std::numeric_limits<double>::max(), -1e-300};
  for (double value : values) {
    for (const std::string& text : {format_number_17g(value), format_number(value)}) {
      const auto back = parse_whole_number(text);
      ASSERT_TRUE(back.has_value()) << text;
      EXPECT_EQ(bits_of(*back), bits_of(value)) << text;
    }
  }
}

TEST(Numbers, WholeFieldOnly) {
  for (const char* text : {"", " ", "1.5abc", "1.5 ", " 1.5", "1,5", "--1", "+-1", "+", "0x", "0x-1", "1e", "e5", "abc", "0x1p3z"})
    EXPECT_FALSE(parse_whole_number(text).has_value()) << "'" << text << "'";
  EXPECT_EQ(parse_whole_number("+1.5"), 1.5);  // a leading '+', as the file formats may have it
  EXPECT_EQ(parse_whole_number("-2e3"), -2000.0);
  EXPECT_EQ(parse_whole_number("0x1p-10"), 1.0 / 1024.0);  // hex floats, as strtod reads them
  EXPECT_EQ(parse_whole_number("-0X1.8p1"), -3.0);
}

TEST(Numbers, OutOfRangeIsRefused) {
  EXPECT_FALSE(parse_whole_number("1e999").has_value());
  EXPECT_FALSE(parse_whole_number("-1e999").has_value());
  EXPECT_FALSE(parse_whole_number("1e-400").has_value());  // underflows to zero
  EXPECT_FALSE(parse_whole_integer("9223372036854775808").has_value());
  EXPECT_EQ(parse_whole_integer("-9223372036854775808"), std::numeric_limits<std::int64_t>::min());
}

TEST(Numbers, NonFiniteOnlyWhenAllowed) {
  for (const char* text : {"nan", "inf", "-inf", "infinity"}) {
    EXPECT_FALSE(parse_whole_number(text).has_value()) << text;
    EXPECT_TRUE(parse_whole_number(text, NonFinite::allow).has_value()) << text;
  }
  EXPECT_TRUE(std::isnan(*parse_whole_number("nan", NonFinite::allow)));
}

TEST(Numbers, Integers) {
  EXPECT_EQ(parse_whole_integer("42"), 42);
  EXPECT_EQ(parse_whole_integer("+7"), 7);
  EXPECT_EQ(parse_whole_integer("-3"), -3);
  for (const char* text : {"", "1.0", "1e3", "12a", " 1", "1 ", "+", "--1"})
    EXPECT_FALSE(parse_whole_integer(text).has_value()) << "'" << text << "'";
}

}  // namespace
}  // namespace zoneode

// Issue 31: the text error messages quote (common/errors.hpp).
namespace zoneode {
namespace {

TEST(Printable, ControlBytesEscapedValidUtf8Kept) {
  EXPECT_EQ(printable("he4"), "he4");
  EXPECT_EQ(printable(std::string_view("o\0" "18", 4)), "o\\x0018");
  EXPECT_EQ(printable("red\x1b[31m"), "red\\x1b[31m");
  EXPECT_EQ(printable("a\tb\nc\r\x7f"), "a\\tb\\nc\\r\\x7f");
  EXPECT_EQ(printable("\xc3\xa9t\xc3\xa9"), "\xc3\xa9t\xc3\xa9");   // "été": kept
  EXPECT_EQ(printable("\xc2\x9b" "2J"), "\\xc2\\x9b2J");           // U+009B, a C1 CSI: escaped
  EXPECT_EQ(printable("\xff\xfe"), "\\xff\\xfe");                   // no UTF-8
  EXPECT_EQ(printable("\xe2\x82"), "\\xe2\\x82");                   // a cut sequence
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");                   // overlong '/'
}

TEST(Printable, ExcerptEscapesAndCuts) {
  EXPECT_EQ(excerpt("\x1b" "abc", 2), "\\x1ba... (4 bytes)");
}

TEST(ByteOrderMark, SkippedOnlyWhole) {
  std::istringstream marked("\xef\xbb\xbfzoneode-network 1");
  skip_byte_order_mark(marked);
  std::string line;
  std::getline(marked, line);
  EXPECT_EQ(line, "zoneode-network 1");
  std::istringstream partial("\xef\xbbx");
  skip_byte_order_mark(partial);
  std::getline(partial, line);
  EXPECT_EQ(line, "\xef\xbbx");
  std::istringstream plain("T9 1 2");
  skip_byte_order_mark(plain);
  std::getline(plain, line);
  EXPECT_EQ(line, "T9 1 2");
}

}  // namespace
}  // namespace zoneode
