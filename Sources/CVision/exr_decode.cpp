// OpenEXR depth through OpenEXR's C library (OpenEXRCore): decode_exr_depth for cv_image_decode's
// CV_DECODE_FLOAT32 mode, and cv_exr_encode. Both work in memory (custom read and write functions),
// so no temporary file exists and no file name can reach a message; OpenEXRCore's messages go to
// a handler here, never to stderr. The depth channel is chosen by name from the header's channel
// list (not by OpenCV's colour conversion, which reads a lone R channel as three channels), and
// HALF samples are widened here.

#include "exr_decode.hpp"

#include <OpenEXR/openexr.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "status.hpp"

namespace cvision {
namespace {

/// The message of the last error OpenEXRCore reported on this thread (its handler has no other way
/// back to the caller that is safe for concurrent decodes).
thread_local std::string last_core_error;

void record_error(exr_const_context_t, exr_result_t code, const char *message) {
  last_core_error = message != nullptr && *message != '\0' ? message : exr_get_default_error_message(code);
}

/// `text` on one line of printable ASCII (a message from the library may quote bytes of the data).
std::string one_line(const std::string &text) {
  std::string out;
  for (unsigned char c : text) out += c >= 0x20 && c < 0x7F ? char(c) : ' ';
  return out;
}

/// Fails with CV_ERR_DECODE (or `code`) unless `result` is success: `what`, then the library's words.
void check(exr_result_t result, const char *what, int32_t code = CV_ERR_DECODE) {
  if (result == EXR_ERR_SUCCESS) return;
  const std::string detail = last_core_error.empty() ? exr_get_default_error_message(result) : last_core_error;
  fail(code, "%s: %s", what, one_line(detail).c_str());
}

struct Memory {
  const uint8_t *data;
  size_t size;
};

int64_t read_memory(exr_const_context_t ctxt, void *user, void *buffer, uint64_t count, uint64_t offset,
                    exr_stream_error_func_ptr_t error) {
  // As pread: a short count at the end (the library reads the header in blocks past it).
  const Memory &memory = *static_cast<const Memory *>(user);
  if (offset > memory.size) {
    if (error != nullptr) {
      error(ctxt, EXR_ERR_READ_IO, "reads at byte %llu of %zu", (unsigned long long)offset, memory.size);
    }
    return -1;
  }
  const size_t available = std::min(size_t(count), memory.size - size_t(offset));
  std::memcpy(buffer, memory.data + offset, available);
  return int64_t(available);
}

int64_t memory_size(exr_const_context_t, void *user) { return int64_t(static_cast<const Memory *>(user)->size); }

int64_t write_memory(exr_const_context_t, void *user, const void *buffer, uint64_t count, uint64_t offset,
                     exr_stream_error_func_ptr_t) {
  auto &bytes = *static_cast<std::vector<uint8_t> *>(user);
  if (offset + count > bytes.size()) bytes.resize(size_t(offset + count));
  std::memcpy(bytes.data() + offset, buffer, size_t(count));
  return int64_t(count);
}

/// Closes a context when the scope ends, whatever happens.
struct Context {
  exr_context_t handle = nullptr;
  ~Context() {
    if (handle != nullptr) exr_finish(&handle);
  }
};

struct DecodePipeline {
  exr_const_context_t context;
  exr_decode_pipeline_t pipeline = EXR_DECODE_PIPELINE_INITIALIZER;
  bool initialized = false;
  ~DecodePipeline() {
    if (initialized) exr_decoding_destroy(context, &pipeline);
  }
};

struct EncodePipeline {
  exr_const_context_t context;
  exr_encode_pipeline_t pipeline = EXR_ENCODE_PIPELINE_INITIALIZER;
  bool initialized = false;
  ~EncodePipeline() {
    if (initialized) exr_encoding_destroy(context, &pipeline);
  }
};

const char *type_name(int32_t pixel_type) {
  return pixel_type == 0 ? "UINT" : pixel_type == 1 ? "HALF" : pixel_type == 2 ? "FLOAT" : "unknown";
}

bool is_depth_name(const std::string &name) {
  std::string lower;
  for (char c : name) lower += char(std::tolower(static_cast<unsigned char>(c)));
  return lower == "z" || lower == "d" || lower == "depth";
}

std::string channel_list(const ExrHeader &header) {
  std::string names;
  for (size_t i = 0; i < header.channels.size() && i < 8; ++i) {
    names += (i == 0 ? "" : ", ") + header.channels[i].name;
  }
  if (header.channels.size() > 8) names += ", ...";
  return one_line(names);
}

}  // namespace

float half_to_float(uint16_t half) noexcept {
  const uint32_t sign = uint32_t(half & 0x8000) << 16;
  const uint32_t exponent = (half >> 10) & 0x1F;
  const uint32_t mantissa = half & 0x3FF;
  if (exponent == 0) {
    const float magnitude = std::ldexp(float(mantissa), -24);  // zero or subnormal: mantissa * 2^-24
    return sign != 0 ? -magnitude : magnitude;
  }
  const uint32_t bits =
      exponent == 31 ? sign | 0x7F800000u | (mantissa << 13) : sign | ((exponent + 112) << 23) | (mantissa << 13);
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

uint16_t float_to_half(float value) noexcept {
  uint32_t x;
  std::memcpy(&x, &value, sizeof(x));
  const uint16_t sign = uint16_t((x >> 16) & 0x8000);
  x &= 0x7FFFFFFFu;
  if (x > 0x7F800000u) return uint16_t(sign | 0x7E00 | ((x >> 13) & 0x3FF));  // NaN (quiet)
  if (x >= 0x477FF000u) return uint16_t(sign | 0x7C00);                     // 65520 and up round to infinity
  if (x < 0x38800000u) {                                                    // below 2^-14: subnormal or zero
    if (x <= 0x33000000u) return sign;                                      // 2^-25 and below: a tie or less to 0
    const uint32_t mantissa = (x & 0x7FFFFF) | 0x800000;
    const uint32_t shift = 126 - (x >> 23);
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1), midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1))) ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = (x - 0x38000000u) >> 13;  // exponent rebiased from 127 to 15, mantissa cut to 10 bits
  const uint32_t rest = x & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;  // a carry moves to the next exponent
  return uint16_t(sign | half);
}

size_t exr_depth_channel(const ExrHeader &header) {
  size_t chosen = header.channels.size();
  if (header.channels.size() == 1) {
    chosen = 0;
  } else {
    size_t named = 0;
    for (size_t i = 0; i < header.channels.size(); ++i) {
      if (is_depth_name(header.channels[i].name)) {
        chosen = i;
        ++named;
      }
    }
    if (named != 1) {
      fail(CV_ERR_DECODE,
           "OpenEXR image has %zu channels (%s) and %s: which one is depth is ambiguous (expected one channel, "
           "or one named Z, D or depth)",
           header.channels.size(), channel_list(header).c_str(),
           named == 0 ? "none is named Z, D or depth" : "several are named Z, D or depth");
    }
  }
  const ExrChannel &channel = header.channels[chosen];
  if (channel.pixel_type != 1 && channel.pixel_type != 2) {
    fail(CV_ERR_DECODE, "OpenEXR depth channel '%s' holds %s samples, not HALF or FLOAT",
         one_line(channel.name).c_str(), type_name(channel.pixel_type));
  }
  if (channel.x_sampling != 1 || channel.y_sampling != 1) {
    fail(CV_ERR_DECODE, "OpenEXR depth channel '%s' is subsampled (%d x %d); only full resolution is read",
         one_line(channel.name).c_str(), channel.x_sampling, channel.y_sampling);
  }
  return chosen;
}

void decode_exr_depth(const uint8_t *data, size_t size, const ExrHeader &header, uint8_t *out, size_t capacity,
                      cv_image_info *info) {
  const size_t index = exr_depth_channel(header);
  const ExrChannel &wanted = header.channels[index];
  const int width = int(header.width), height = int(header.height);
  info->width = width;
  info->height = height;
  info->channels = 1;
  info->bytes_per_channel = 4;
  info->byte_count = int64_t(width) * height * 4;
  if (uint64_t(info->byte_count) > capacity) {
    fail(CV_ERR_BUFFER_TOO_SMALL, "output buffer holds %zu bytes; the image needs %lld", capacity,
         (long long)info->byte_count);
  }

  last_core_error.clear();
  Memory memory{data, size};
  exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
  init.error_handler_fn = record_error;
  init.user_data = &memory;
  init.read_fn = read_memory;
  init.size_fn = memory_size;
  init.max_image_width = CV_IMAGE_MAX_DIMENSION;
  init.max_image_height = CV_IMAGE_MAX_DIMENSION;
  init.flags = EXR_CONTEXT_FLAG_DISABLE_CHUNK_RECONSTRUCTION;
  Context context;
  check(exr_start_read(&context.handle, "OpenEXR data", &init), "OpenEXR header is unreadable");

  exr_attr_box2i_t window;
  check(exr_get_data_window(context.handle, 0, &window), "OpenEXR dataWindow is unreadable");
  if (int64_t(window.min.x) != header.x_min || int64_t(window.min.y) != header.y_min ||
      int64_t(window.max.x) - window.min.x + 1 != header.width ||
      int64_t(window.max.y) - window.min.y + 1 != header.height) {
    fail(CV_ERR_INTERNAL, "OpenEXR dataWindow read differently by OpenEXRCore and the header check");
  }
  int32_t lines_per_chunk = 0;
  check(exr_get_scanlines_per_chunk(context.handle, 0, &lines_per_chunk), "OpenEXR chunk size is unreadable");
  if (lines_per_chunk <= 0) fail(CV_ERR_DECODE, "OpenEXR chunks hold %d scanlines", lines_per_chunk);

  const bool half = wanted.pixel_type == 1;
  const size_t bytes = half ? 2 : 4;
  std::vector<uint16_t> halves(half ? size_t(width) * height : 0);
  uint8_t *target = half ? reinterpret_cast<uint8_t *>(halves.data()) : out;
  const size_t row_bytes = size_t(width) * bytes;

  DecodePipeline decoder{context.handle};
  for (int64_t y = header.y_min; y < header.y_min + header.height; y += lines_per_chunk) {
    exr_chunk_info_t chunk;
    char where[64];
    std::snprintf(where, sizeof(where), "OpenEXR chunk at scanline %lld", (long long)y);
    check(exr_read_scanline_chunk_info(context.handle, 0, int(y), &chunk), where);
    if (!decoder.initialized) {
      check(exr_decoding_initialize(context.handle, 0, &chunk, &decoder.pipeline), where);
      decoder.initialized = true;
    } else {
      check(exr_decoding_update(context.handle, 0, &chunk, &decoder.pipeline), where);
    }
    bool found = false;
    for (int16_t c = 0; c < decoder.pipeline.channel_count; ++c) {
      exr_coding_channel_info_t &channel = decoder.pipeline.channels[c];
      if (wanted.name != channel.channel_name) {
        channel.decode_to_ptr = nullptr;
        continue;
      }
      found = true;
      channel.user_data_type = uint16_t(wanted.pixel_type);
      channel.user_bytes_per_element = int16_t(bytes);
      channel.user_pixel_stride = int32_t(bytes);
      channel.user_line_stride = int32_t(row_bytes);
      channel.decode_to_ptr = target + size_t(chunk.start_y - header.y_min) * row_bytes;
    }
    if (!found) fail(CV_ERR_INTERNAL, "OpenEXRCore does not list channel '%s'", one_line(wanted.name).c_str());
    if (chunk.start_y < header.y_min || chunk.start_y + chunk.height > header.y_min + header.height) {
      fail(CV_ERR_DECODE, "%s covers scanlines outside the dataWindow", where);
    }
    check(exr_decoding_choose_default_routines(context.handle, 0, &decoder.pipeline), where);
    check(exr_decoding_run(context.handle, 0, &decoder.pipeline), where);
  }
  if (half) {
    float *floats = reinterpret_cast<float *>(out);
    for (size_t i = 0; i < halves.size(); ++i) floats[i] = half_to_float(halves[i]);
  }
}

}  // namespace cvision

extern "C" int32_t cv_exr_encode(const float *values, int32_t width, int32_t height, const char *const *names,
                                 int32_t channel_count, int32_t pixel_type, int32_t compression, uint8_t *out,
                                 size_t capacity, size_t *size, cv_status *status) noexcept {
  using cvision::check;
  using cvision::fail;
  return cvision::guarded(status, "cv_exr_encode", [&](cv_status *) -> int32_t {
    cvision::require_pointer(size, "size");
    *size = 0;
    cvision::require_pointer(values, "values");
    cvision::require_pointer(names, "names");
    if (capacity > 0) cvision::require_pointer(out, "out");
    if (width <= 0 || height <= 0 || width > CV_IMAGE_MAX_DIMENSION || height > CV_IMAGE_MAX_DIMENSION ||
        int64_t(width) * height * std::max(channel_count, 1) > CV_IMAGE_MAX_PIXELS) {
      fail(CV_ERR_INVALID_ARGUMENT, "width and height must be in 1...%d, with at most %d samples (got %d x %d)",
           CV_IMAGE_MAX_DIMENSION, CV_IMAGE_MAX_PIXELS, width, height);
    }
    if (channel_count < 1 || channel_count > 8) {
      fail(CV_ERR_INVALID_ARGUMENT, "channel_count must be in 1...8 (got %d)", channel_count);
    }
    if (pixel_type != CV_EXR_UINT && pixel_type != CV_EXR_HALF && pixel_type != CV_EXR_FLOAT) {
      fail(CV_ERR_INVALID_ARGUMENT, "pixel_type must be CV_EXR_UINT, CV_EXR_HALF or CV_EXR_FLOAT (got %d)",
           pixel_type);
    }
    if (compression < 0 || compression > 4) {
      fail(CV_ERR_INVALID_ARGUMENT, "compression must be 0 NONE, 1 RLE, 2 ZIPS, 3 ZIP or 4 PIZ (got %d)",
           compression);
    }
    for (int32_t c = 0; c < channel_count; ++c) {
      cvision::require_pointer(names[c], "names[i]");
      const size_t length = std::strlen(names[c]);
      if (length == 0 || length > 255) fail(CV_ERR_INVALID_ARGUMENT, "channel names must have 1...255 bytes");
    }

    // Samples in the stored type, channel after channel.
    const size_t count = size_t(width) * height;
    const size_t bytes = pixel_type == CV_EXR_HALF ? 2 : 4;
    std::vector<uint8_t> samples(count * channel_count * bytes);
    for (size_t i = 0; i < count * channel_count; ++i) {
      const float value = values[i];
      if (pixel_type == CV_EXR_HALF) {
        const uint16_t half = cvision::float_to_half(value);
        std::memcpy(samples.data() + 2 * i, &half, 2);
      } else if (pixel_type == CV_EXR_UINT) {
        const uint32_t integer =
            std::isfinite(value) && value > 0 ? (value >= 4294967295.0f ? 0xFFFFFFFFu : uint32_t(value)) : 0;
        std::memcpy(samples.data() + 4 * i, &integer, 4);
      } else {
        std::memcpy(samples.data() + 4 * i, &value, 4);
      }
    }

    cvision::last_core_error.clear();
    std::vector<uint8_t> encoded;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.error_handler_fn = cvision::record_error;
    init.user_data = &encoded;
    init.write_fn = cvision::write_memory;
    cvision::Context context;
    check(exr_start_write(&context.handle, "OpenEXR data", EXR_WRITE_FILE_DIRECTLY, &init),
          "cannot start an OpenEXR encoder", CV_ERR_INTERNAL);
    int part = 0;
    check(exr_add_part(context.handle, "", EXR_STORAGE_SCANLINE, &part), "cannot add an OpenEXR part",
          CV_ERR_INTERNAL);
    check(exr_initialize_required_attr_simple(context.handle, part, width, height, exr_compression_t(compression)),
          "cannot set the OpenEXR header", CV_ERR_INTERNAL);
    // OpenEXR's channel list is sorted by name; the encoder's channels come out in that order.
    for (int32_t c = 0; c < channel_count; ++c) {
      if (exr_add_channel(context.handle, part, names[c], exr_pixel_type_t(pixel_type), EXR_PERCEPTUALLY_LINEAR, 1,
                          1) != EXR_ERR_SUCCESS) {
        fail(CV_ERR_INVALID_ARGUMENT, "cannot add OpenEXR channel '%s' (a repeated name?)",
             cvision::one_line(names[c]).c_str());
      }
    }
    check(exr_write_header(context.handle), "cannot write the OpenEXR header", CV_ERR_INTERNAL);
    int32_t lines_per_chunk = 0;
    check(exr_get_scanlines_per_chunk(context.handle, part, &lines_per_chunk), "OpenEXR chunk size",
          CV_ERR_INTERNAL);
    const size_t row_bytes = size_t(width) * bytes;
    cvision::EncodePipeline encoder{context.handle};
    for (int32_t y = 0; y < height; y += lines_per_chunk) {
      exr_chunk_info_t chunk;
      check(exr_write_scanline_chunk_info(context.handle, part, y, &chunk), "cannot encode an OpenEXR chunk",
            CV_ERR_INTERNAL);
      if (!encoder.initialized) {
        check(exr_encoding_initialize(context.handle, part, &chunk, &encoder.pipeline),
              "cannot encode an OpenEXR chunk", CV_ERR_INTERNAL);
        encoder.initialized = true;
      } else {
        check(exr_encoding_update(context.handle, part, &chunk, &encoder.pipeline), "cannot encode an OpenEXR chunk",
              CV_ERR_INTERNAL);
      }
      for (int16_t c = 0; c < encoder.pipeline.channel_count; ++c) {
        exr_coding_channel_info_t &channel = encoder.pipeline.channels[c];
        int32_t source = -1;
        for (int32_t i = 0; i < channel_count; ++i) {
          if (std::strcmp(names[i], channel.channel_name) == 0) source = i;
        }
        if (source < 0) fail(CV_ERR_INTERNAL, "OpenEXRCore lists a channel that was not added");
        channel.user_data_type = uint16_t(pixel_type);
        channel.user_bytes_per_element = int16_t(bytes);
        channel.user_pixel_stride = int32_t(bytes);
        channel.user_line_stride = int32_t(row_bytes);
        channel.encode_from_ptr = samples.data() + (size_t(source) * count + size_t(y) * width) * bytes;
      }
      check(exr_encoding_choose_default_routines(context.handle, part, &encoder.pipeline),
            "cannot encode an OpenEXR chunk", CV_ERR_INTERNAL);
      check(exr_encoding_run(context.handle, part, &encoder.pipeline), "cannot encode an OpenEXR chunk",
            CV_ERR_INTERNAL);
    }
    if (encoder.initialized) {
      exr_encoding_destroy(context.handle, &encoder.pipeline);
      encoder.initialized = false;
    }
    const exr_result_t finished = exr_finish(&context.handle);
    context.handle = nullptr;
    check(finished, "cannot finish the OpenEXR data", CV_ERR_INTERNAL);

    *size = encoded.size();
    if (encoded.size() > capacity) {
      fail(CV_ERR_BUFFER_TOO_SMALL, "output buffer holds %zu bytes; the OpenEXR data needs %zu", capacity,
           encoded.size());
    }
    std::memcpy(out, encoded.data(), encoded.size());
    return CV_OK;
  });
}
