#include "analyzer/import/kineto/json_value_end.h"

#if defined(__AVX512BW__) || defined(__AVX2__) || defined(__SSE2__)
#include <immintrin.h>
#endif

#include <string>

namespace ampscope::analyzer::import {

namespace {

// Bit i of each mask describes byte i of a 64-byte block.
struct BlockMasks {
  std::uint64_t quote = 0;
  std::uint64_t backslash = 0;
  std::uint64_t open = 0;   // '{' or '['
  std::uint64_t close = 0;  // '}' or ']'
};

// '[' and '{' differ only in bit 5 (0x5B, 0x7B), as do ']' and '}' (0x5D, 0x7D): setting that
// bit turns both of a pair into one byte, so one comparison finds either.
constexpr char kCaseBit = 0x20;

inline __attribute__((always_inline)) BlockMasks classify(const char* block) {
  BlockMasks masks;
#if defined(__AVX512BW__)
  // One comparison per kind gives the whole block's mask.
  const __m512i bytes = _mm512_loadu_si512(block);
  const __m512i folded = _mm512_or_si512(bytes, _mm512_set1_epi8(kCaseBit));
  masks.quote = _mm512_cmpeq_epi8_mask(bytes, _mm512_set1_epi8('"'));
  masks.backslash = _mm512_cmpeq_epi8_mask(bytes, _mm512_set1_epi8('\\'));
  masks.open = _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8('{'));
  masks.close = _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8('}'));
#elif defined(__AVX2__)
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i backslash = _mm256_set1_epi8('\\');
  const __m256i open = _mm256_set1_epi8('{');
  const __m256i close = _mm256_set1_epi8('}');
  const __m256i case_bit = _mm256_set1_epi8(kCaseBit);
  for (int half = 0; half < 2; ++half) {
    const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 32 * half));
    const __m256i folded = _mm256_or_si256(bytes, case_bit);
    const int shift = 32 * half;
    masks.quote |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(bytes, quote)))) << shift;
    masks.backslash |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(bytes, backslash)))) << shift;
    masks.open |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(folded, open)))) << shift;
    masks.close |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(folded, close)))) << shift;
  }
#elif defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i open = _mm_set1_epi8('{');
  const __m128i close = _mm_set1_epi8('}');
  const __m128i case_bit = _mm_set1_epi8(kCaseBit);
  for (int quarter = 0; quarter < 4; ++quarter) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * quarter));
    const __m128i folded = _mm_or_si128(bytes, case_bit);
    const int shift = 16 * quarter;
    masks.quote |= static_cast<std::uint64_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, quote))) << shift;
    masks.backslash |= static_cast<std::uint64_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, backslash))) << shift;
    masks.open |= static_cast<std::uint64_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, open))) << shift;
    masks.close |= static_cast<std::uint64_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, close))) << shift;
  }
#else
  for (int i = 0; i < 64; ++i) {
    const char c = block[i];
    const char folded = static_cast<char>(c | kCaseBit);
    const std::uint64_t bit = std::uint64_t{1} << i;
    if (c == '"') masks.quote |= bit;
    if (c == '\\') masks.backslash |= bit;
    if (folded == '{') masks.open |= bit;
    if (folded == '}') masks.close |= bit;
  }
#endif
  return masks;
}

// Bit i of the result is the XOR of bits 0..i of x: 1 from an opening quote up to (not
// including) its closing quote.
std::uint64_t runningXor(std::uint64_t x) {
#if defined(__PCLMUL__)
  // A carry-less multiplication by all ones is that running XOR, in one instruction.
  const __m128i product = _mm_clmulepi64_si128(_mm_set_epi64x(0, static_cast<long long>(x)), _mm_set1_epi8(-1), 0);
  return static_cast<std::uint64_t>(_mm_cvtsi128_si64(product));
#else
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
#endif
}

int lowestBit(std::uint64_t x) { return __builtin_ctzll(x); }

// One 64-byte block's quotes and brackets outside strings, carrying the string and escape state
// from block to block.
struct BlockStructure {
  std::uint64_t quotes = 0;    // unescaped quotes
  std::uint64_t inside = 0;    // bytes inside strings (an opening quote included)
  std::uint64_t opens = 0;     // '{' or '[' outside strings
  std::uint64_t brackets = 0;  // any bracket outside strings
};

inline __attribute__((always_inline)) BlockStructure readBlock(const char* block, std::size_t valid_bytes, std::uint64_t& inside_string, bool& escape_pending) {
  const std::uint64_t valid = valid_bytes == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << valid_bytes) - 1;
  BlockMasks masks = classify(block);
  masks.quote &= valid;
  masks.open &= valid;
  masks.close &= valid;

  // Which bytes a backslash escapes. Backslashes are rare in traces, so they are walked one
  // by one: an escaping backslash escapes the next byte, which cannot itself escape.
  std::uint64_t escaped = escape_pending ? 1 : 0;
  escape_pending = false;
  std::uint64_t escaping = masks.backslash & valid & ~escaped;
  while (escaping != 0) {
    const int at = lowestBit(escaping);
    if (static_cast<std::size_t>(at) + 1 == valid_bytes) {
      escape_pending = true;  // the escaped byte is in the next block
      break;
    }
    const std::uint64_t next = std::uint64_t{1} << (at + 1);
    escaped |= next;
    escaping &= ~((std::uint64_t{1} << at) | next);
  }

  BlockStructure block_structure;
  block_structure.quotes = masks.quote & ~escaped;
  block_structure.inside = runningXor(block_structure.quotes) ^ inside_string;
  block_structure.opens = masks.open & ~block_structure.inside;
  block_structure.brackets = (masks.open | masks.close) & ~block_structure.inside;
  inside_string = ((block_structure.inside >> (valid_bytes - 1)) & 1) != 0 ? ~std::uint64_t{0} : 0;
  return block_structure;
}

}  // namespace

std::size_t JsonValueEnd::scan(const char* data, std::size_t from, std::size_t to) {
  while (from < to) {
    const std::size_t valid_bytes = to - from < 64 ? to - from : 64;
    const BlockStructure block = readBlock(data + from, valid_bytes, inside_string_, escape_pending_);
    if (string_value_) {
      // The opening quote is inside; the closing quote is the first quote that is not.
      const std::uint64_t closing = block.quotes & ~block.inside;
      if (closing != 0) return from + static_cast<std::size_t>(lowestBit(closing)) + 1;
    } else {
      std::uint64_t brackets = block.brackets;
      while (brackets != 0) {
        const int at = lowestBit(brackets);
        if ((block.opens >> at) & 1) ++depth_;
        else if (--depth_ == 0) return from + static_cast<std::size_t>(at) + 1;
        brackets &= brackets - 1;
      }
    }
    from += valid_bytes;
  }
  return kNotYet;
}

bool bracketsNest(const char* text, std::size_t size) {
  std::uint64_t inside_string = 0;
  bool escape_pending = false;
  std::string open;  // the kinds of the brackets open now, innermost last
  for (std::size_t from = 0; from < size;) {
    const std::size_t valid_bytes = size - from < 64 ? size - from : 64;
    const BlockStructure block = readBlock(text + from, valid_bytes, inside_string, escape_pending);
    for (std::uint64_t brackets = block.brackets; brackets != 0; brackets &= brackets - 1) {
      const int at = lowestBit(brackets);
      const char bracket = text[from + static_cast<std::size_t>(at)];
      if ((block.opens >> at) & 1) {
        open.push_back(bracket);
      } else if (open.empty() || open.back() != (bracket == '}' ? '{' : '[')) {
        return false;
      } else {
        open.pop_back();
      }
    }
    from += valid_bytes;
  }
  return open.empty() && inside_string == 0 && !escape_pending;
}

}  // namespace ampscope::analyzer::import
