// PNG and JPEG decoding without OpenCV: PNG over libdeflate (whole-buffer inflate, about twice as
// fast as libpng over zlib on 16-bit depth maps), JPEG through libjpeg-turbo directly (grey or RGB
// straight from the decoder, no colour conversion afterwards). Nothing is printed: libjpeg's
// messages are kept for the status, and no file descriptor is redirected, so other threads can
// keep writing to stderr. cv_image_decode (image.cpp) checks magic bytes, truncation and the size
// limits before calling these.

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <vector>

#include <jpeglib.h>
#include <libdeflate.h>

#include "codecs.hpp"
#include "status.hpp"

namespace cvision {
namespace {

uint32_t be32(const uint8_t *p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

/// libpng's grey from RGB with OpenCV's weights (png_set_rgb_to_gray(..., 0.299, 0.587)):
/// 15-bit fixed-point coefficients (29900 and 58700 of 100000, truncated; blue the rest), the sum
/// truncated for 8-bit samples and rounded for 16-bit ones, as libpng does.
uint32_t luma(uint32_t r, uint32_t g, uint32_t b, bool sixteen) {
  if (r == g && g == b) return r;
  return (9797 * r + 19234 * g + 3737 * b + (sixteen ? 16384 : 0)) >> 15;
}

const char *png_type_name(int color_type) {
  switch (color_type) {
    case 0: return "grey";
    case 2: return "RGB";
    case 3: return "palette";
    case 4: return "grey+alpha";
    case 6: return "RGBA";
    default: return "unknown";
  }
}

/// Paeth's predictor from the left (a), upper (b) and upper-left (c) bytes, without branches:
/// p - a = b - c, p - b = a - c, p - c = a + b - 2c; a when it is nearest (ties to a, then b).
inline int paeth(int a, int b, int c) {
  const int pa = std::abs(b - c), pb = std::abs(a - c), pc = std::abs(a + b - 2 * c);
  const int nearer = pa <= pb ? a : b, distance = pa <= pb ? pa : pb;
  return distance <= pc ? nearer : c;
}

/// Reverses one row's PNG filter in place for pixels of `S` bytes; `previous` is the unfiltered
/// row above (null for the first row of a pass, which filters against zeros). `bytes` is a
/// multiple of `S` (S is 1 for bit depths under 8). The `S` bytes of a pixel are independent
/// chains, kept in registers (left and upper-left), so the serial filters run `S` chains at once.
template <size_t S>
void unfilter_row(uint8_t filter, uint8_t *row, const uint8_t *previous, size_t bytes) {
  if (bytes < S) return;
  if (!previous) {
    // Up and upper-left are 0: Up changes nothing, Paeth predicts the left byte (as Sub does),
    // Average half the left byte.
    if (filter == 2) return;
    if (filter == 4) filter = 1;
    if (filter == 3) {
      for (size_t x = S; x < bytes; ++x) row[x] = uint8_t(row[x] + (row[x - S] >> 1));
      return;
    }
  }
  switch (filter) {
    case 1:
      for (size_t x = S; x < bytes; ++x) row[x] = uint8_t(row[x] + row[x - S]);
      return;
    case 2:
      for (size_t x = 0; x < bytes; ++x) row[x] = uint8_t(row[x] + previous[x]);
      return;
    case 3: {
      int left[S];
      for (size_t k = 0; k < S; ++k) left[k] = row[k] = uint8_t(row[k] + (previous[k] >> 1));
      for (size_t x = S; x < bytes; x += S) {
        for (size_t k = 0; k < S; ++k) left[k] = row[x + k] = uint8_t(row[x + k] + ((left[k] + previous[x + k]) >> 1));
      }
      return;
    }
    case 4: {
      int left[S], upper_left[S];
      for (size_t k = 0; k < S; ++k) {  // no left neighbour: Paeth predicts the byte above
        left[k] = row[k] = uint8_t(row[k] + previous[k]);
        upper_left[k] = previous[k];
      }
      for (size_t x = S; x < bytes; x += S) {
        for (size_t k = 0; k < S; ++k) {
          const int up = previous[x + k];
          left[k] = row[x + k] = uint8_t(row[x + k] + paeth(left[k], up, upper_left[k]));
          upper_left[k] = up;
        }
      }
      return;
    }
    default: return;
  }
}

/// Reverses one row's PNG filter in place; `previous` is the unfiltered row above (or null), `step`
/// the bytes per pixel (at least 1).
void unfilter(uint8_t filter, uint8_t *row, const uint8_t *previous, size_t bytes, size_t step) {
  if (filter > 4) fail(CV_ERR_DECODE, "PNG row uses filter type %u (only 0...4 exist)", unsigned(filter));
  if (filter == 0) return;
  switch (step) {  // every PNG pixel size: grey, grey+alpha, RGB, RGBA at 8 or 16 bits
    case 1: return unfilter_row<1>(filter, row, previous, bytes);
    case 2: return unfilter_row<2>(filter, row, previous, bytes);
    case 3: return unfilter_row<3>(filter, row, previous, bytes);
    case 4: return unfilter_row<4>(filter, row, previous, bytes);
    case 6: return unfilter_row<6>(filter, row, previous, bytes);
    case 8: return unfilter_row<8>(filter, row, previous, bytes);
    default: fail(CV_ERR_INTERNAL, "PNG pixels of %zu bytes", step);
  }
}

struct PNGLayout {
  int width = 0, height = 0, depth = 0, color_type = 0, interlace = 0;
  int samples = 1;  // per pixel
  std::vector<uint8_t> palette;  // RGB triples
};

/// Sample `index` (0...samples-1) of pixel `x` of an unfiltered row: 16-bit samples whole, 8-bit
/// as stored, 1, 2 and 4 bits scaled up to 8 (grey) or as stored (palette indices).
uint32_t sample(const PNGLayout &png, const uint8_t *row, int x, int index) {
  if (png.depth == 16) {
    const uint8_t *p = row + (size_t(x) * png.samples + index) * 2;
    return (uint32_t(p[0]) << 8) | p[1];
  }
  if (png.depth == 8) return row[size_t(x) * png.samples + index];
  const int bit = x * png.depth;
  const uint32_t value = (row[bit >> 3] >> (8 - png.depth - (bit & 7))) & ((1u << png.depth) - 1);
  return png.color_type == 3 ? value : value * 255 / ((1u << png.depth) - 1);
}

/// Writes pixel `x` of an unfiltered row to `out` (one pixel of the output mode).
void put_pixel(const PNGLayout &png, const uint8_t *row, int x, int32_t mode, uint8_t *out) {
  if (mode == CV_DECODE_DEPTH16) {
    const uint16_t value = uint16_t((row[size_t(x) * 2] << 8) | row[size_t(x) * 2 + 1]);
    std::memcpy(out, &value, 2);
    return;
  }
  uint32_t r, g, b;
  if (png.color_type == 3) {
    const uint32_t index = sample(png, row, x, 0);
    if (index * 3 + 2 >= png.palette.size()) fail(CV_ERR_DECODE, "PNG pixel uses palette entry %u, past PLTE", index);
    r = png.palette[index * 3], g = png.palette[index * 3 + 1], b = png.palette[index * 3 + 2];
  } else if (png.color_type == 0 || png.color_type == 4) {
    r = g = b = sample(png, row, x, 0);
  } else {
    r = sample(png, row, x, 0), g = sample(png, row, x, 1), b = sample(png, row, x, 2);
  }
  // 16-bit samples: grey is computed at 16 bits, then both keep the high byte (libpng's strip_16).
  const int shift = png.depth == 16 ? 8 : 0;
  if (mode == CV_DECODE_RGB8) {
    out[0] = uint8_t(r >> shift), out[1] = uint8_t(g >> shift), out[2] = uint8_t(b >> shift);
  } else {
    out[0] = uint8_t(luma(r, g, b, shift != 0) >> shift);
  }
}

}  // namespace

void decode_png(const uint8_t *data, size_t size, int32_t mode, uint8_t *out) {
  PNGLayout png;
  std::vector<uint8_t> joined;  // IDAT chunks, when there are several
  const uint8_t *stream = nullptr;
  size_t stream_size = 0, idat_count = 0;
  bool seen_header = false;
  for (size_t offset = 8; offset + 12 <= size;) {
    const uint32_t length = be32(data + offset);
    if (length > size - offset - 12) fail(CV_ERR_DECODE, "truncated PNG data (chunk at byte %zu runs past the end)", offset);
    const uint8_t *type = data + offset + 4, *body = data + offset + 8;
    const bool critical = (type[0] & 0x20) == 0;
    if (critical && libdeflate_crc32(0, type, length + 4) != be32(body + length)) {
      fail(CV_ERR_DECODE, "PNG %.4s chunk at byte %zu fails its CRC", reinterpret_cast<const char *>(type), offset);
    }
    if (std::memcmp(type, "IHDR", 4) == 0) {
      if (length != 13) fail(CV_ERR_DECODE, "PNG IHDR chunk is %u bytes, not 13", length);
      png.width = int(be32(body)), png.height = int(be32(body + 4));
      png.depth = body[8], png.color_type = body[9], png.interlace = body[12];
      seen_header = true;
    } else if (std::memcmp(type, "PLTE", 4) == 0) {
      png.palette.assign(body, body + length - length % 3);
    } else if (std::memcmp(type, "IDAT", 4) == 0) {
      if (idat_count++ == 0) {
        stream = body, stream_size = length;
      } else {
        if (idat_count == 2) joined.assign(stream, stream + stream_size);
        joined.insert(joined.end(), body, body + length);
        stream = joined.data(), stream_size = joined.size();
      }
    } else if (std::memcmp(type, "IEND", 4) == 0) {
      break;
    } else if (critical) {
      fail(CV_ERR_DECODE, "PNG has an unknown critical chunk %.4s", reinterpret_cast<const char *>(type));
    }
    offset += 12 + size_t(length);
  }
  if (!seen_header) fail(CV_ERR_DECODE, "PNG has no IHDR chunk");
  if (idat_count == 0) fail(CV_ERR_DECODE, "PNG has no image data (no IDAT chunk)");
  const int d = png.depth;
  const bool depth_ok = png.color_type == 0   ? (d == 1 || d == 2 || d == 4 || d == 8 || d == 16)
                        : png.color_type == 3 ? (d == 1 || d == 2 || d == 4 || d == 8)
                        : (png.color_type == 2 || png.color_type == 4 || png.color_type == 6) && (d == 8 || d == 16);
  if (!depth_ok) fail(CV_ERR_DECODE, "PNG colour type %d with bit depth %d is not valid", png.color_type, d);
  if (png.interlace > 1) fail(CV_ERR_DECODE, "PNG interlace method %d is unknown", png.interlace);
  if (png.color_type == 3 && png.palette.empty()) fail(CV_ERR_DECODE, "PNG palette image has no PLTE chunk");
  if (mode == CV_DECODE_DEPTH16 && !(png.color_type == 0 && d == 16)) {
    fail(CV_ERR_DECODE, "expected a single-channel 16-bit image, got %s %d-bit %s PNG", d == 8 ? "an" : "a", d, png_type_name(png.color_type));
  }
  png.samples = png.color_type == 2 ? 3 : png.color_type == 4 ? 2 : png.color_type == 6 ? 4 : 1;

  // Adam7 passes (x0, y0, dx, dy), or the whole image as one pass.
  static const int adam7[7][4] = {{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4},
                                  {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}};
  static const int whole[1][4] = {{0, 0, 1, 1}};
  const int (*passes)[4] = png.interlace ? adam7 : whole;
  const int pass_count = png.interlace ? 7 : 1;
  const size_t bits_per_pixel = size_t(d) * png.samples, step = std::max<size_t>(1, bits_per_pixel / 8);
  size_t raw_size = 0;
  for (int p = 0; p < pass_count; ++p) {
    const size_t w = (png.width - passes[p][0] + passes[p][2] - 1) / passes[p][2];
    const size_t h = (png.height - passes[p][1] + passes[p][3] - 1) / passes[p][3];
    if (w > 0 && h > 0) raw_size += h * (1 + (w * bits_per_pixel + 7) / 8);
  }
  // Deflate expands at most about 1032:1: a stream too short for the declared size fails here,
  // before the buffer is allocated.
  if (raw_size / 1032 > stream_size + 64) {
    fail(CV_ERR_DECODE, "PNG image data (%zu bytes) is too short for %d x %d pixels", stream_size, png.width,
         png.height);
  }
  std::vector<uint8_t> raw(raw_size);
  libdeflate_decompressor *inflater = libdeflate_alloc_decompressor();
  if (inflater == nullptr) throw std::bad_alloc();
  size_t produced = 0;
  const libdeflate_result result =
      libdeflate_zlib_decompress(inflater, stream, stream_size, raw.data(), raw.size(), &produced);
  libdeflate_free_decompressor(inflater);
  if (result == LIBDEFLATE_INSUFFICIENT_SPACE) fail(CV_ERR_DECODE, "PNG holds more image data than its header declares");
  if (result != LIBDEFLATE_SUCCESS) fail(CV_ERR_DECODE, "PNG image data (IDAT) is not a valid zlib stream");
  if (produced != raw.size()) {
    fail(CV_ERR_DECODE, "PNG image data ends after %zu of %zu bytes", produced, raw.size());
  }

  const size_t out_pixel = mode == CV_DECODE_RGB8 ? 3 : mode == CV_DECODE_DEPTH16 ? 2 : 1;
  uint8_t *cursor = raw.data();
  for (int p = 0; p < pass_count; ++p) {
    const int x0 = passes[p][0], y0 = passes[p][1], dx = passes[p][2], dy = passes[p][3];
    const int w = (png.width - x0 + dx - 1) / dx, h = (png.height - y0 + dy - 1) / dy;
    if (w <= 0 || h <= 0) continue;
    const size_t row_bytes = (size_t(w) * bits_per_pixel + 7) / 8;
    const uint8_t *previous = nullptr;
    for (int y = 0; y < h; ++y, cursor += 1 + row_bytes) {
      uint8_t *row = cursor + 1;
      unfilter(cursor[0], row, previous, row_bytes, step);
      previous = row;
      uint8_t *target = out + (size_t(y0 + y * dy) * png.width + x0) * out_pixel;
      if (dx == 1 && mode == CV_DECODE_DEPTH16) {  // the depth maps: big-endian to native, whole rows
        // Each sample loaded whole and its bytes swapped: a loop the compiler vectorises (the
        // byte-by-byte form took a rotate per sample, a third of decode_png's own time).
        // The samples are big-endian: swapped on little-endian hosts only.
        for (int x = 0; x < w; ++x) {
          uint16_t value;
          std::memcpy(&value, row + 2 * size_t(x), 2);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
          value = uint16_t((value << 8) | (value >> 8));
#endif
          std::memcpy(target + 2 * size_t(x), &value, 2);
        }
      } else if (dx == 1 && d == 8 && png.samples == int(out_pixel) && png.color_type != 3) {
        std::memcpy(target, row, row_bytes);  // 8-bit grey to grey, RGB to RGB
      } else {
        for (int x = 0; x < w; ++x) put_pixel(png, row, x, mode, target + size_t(x) * dx * out_pixel);
      }
    }
  }
}

namespace {

/// libjpeg's error manager: errors jump back instead of exiting, messages are kept, not printed.
struct JPEGErrors {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpeg_error_exit(j_common_ptr info) {
  auto *errors = reinterpret_cast<JPEGErrors *>(info->err);
  (*info->err->format_message)(info, errors->message);
  std::longjmp(errors->jump, 1);
}

void jpeg_quiet(j_common_ptr, int) {}

}  // namespace

void decode_jpeg(const uint8_t *data, size_t size, int32_t mode, uint8_t *out, int width, int height,
                 int reduction) {
  if (mode != CV_DECODE_GRAY8 && mode != CV_DECODE_RGB8) {
    fail(CV_ERR_DECODE, "expected a %s image, got a JPEG (8-bit)",
         mode == CV_DECODE_DEPTH16 ? "single-channel 16-bit" : "single-channel float");
  }
  jpeg_decompress_struct decoder;
  JPEGErrors errors;
  errors.message[0] = '\0';
  decoder.err = jpeg_std_error(&errors.manager);
  errors.manager.error_exit = jpeg_error_exit;
  errors.manager.emit_message = jpeg_quiet;
  // Only plain locals live across the jump; the Failure is thrown after jpeg_destroy.
  if (setjmp(errors.jump) != 0) {
    jpeg_destroy_decompress(&decoder);
    fail(CV_ERR_DECODE, "not a decodable image: libjpeg: %s", errors.message);
  }
  jpeg_create_decompress(&decoder);
  jpeg_mem_src(&decoder, data, static_cast<unsigned long>(size));
  jpeg_read_header(&decoder, TRUE);
  if (decoder.num_components != 1 && decoder.num_components != 3) {
    const int components = decoder.num_components;
    jpeg_destroy_decompress(&decoder);
    fail(CV_ERR_DECODE, "JPEG with %d components (CMYK?); only grey and colour (YCbCr) JPEGs are read", components);
  }
  decoder.out_color_space = mode == CV_DECODE_RGB8 ? JCS_RGB : JCS_GRAYSCALE;
  // DCT scaling: each 8x8 block's inverse DCT produces 8/reduction pixels a side (libjpeg-turbo's
  // reduced IDCTs), the chroma upsampled to match; the output is ceil(side / reduction).
  decoder.scale_num = 1;
  decoder.scale_denom = unsigned(reduction);
  jpeg_start_decompress(&decoder);
  const bool size_ok = int(decoder.output_width) == (width + reduction - 1) / reduction &&
                       int(decoder.output_height) == (height + reduction - 1) / reduction;
  if (size_ok) {
    // Up to 16 rows a call (a plain array: nothing to destroy should libjpeg jump out): the
    // decoder writes a whole band of 8 or 16 rows at once instead of one row a call.
    const size_t stride = size_t(decoder.output_width) * (mode == CV_DECODE_RGB8 ? 3 : 1);
    JSAMPROW rows[16];
    while (decoder.output_scanline < decoder.output_height) {
      const JDIMENSION first = decoder.output_scanline;
      const JDIMENSION band = std::min<JDIMENSION>(16, decoder.output_height - first);
      for (JDIMENSION k = 0; k < band; ++k) rows[k] = out + size_t(first + k) * stride;
      jpeg_read_scanlines(&decoder, rows, band);
    }
    jpeg_finish_decompress(&decoder);
  }
  jpeg_destroy_decompress(&decoder);
  if (!size_ok) fail(CV_ERR_DECODE, "JPEG decodes to a size other than its frame header's");
}

}  // namespace cvision

extern "C" void cv_image_prepare(void) noexcept {
  cvision::quiet_libraries();
  ::setenv("OPENCV_IO_ENABLE_OPENEXR", "1", 0);  // as cv_image_decode sets it for its first OpenEXR image
}

extern "C" void cv_keep_freed_memory(void) noexcept {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
}
