// Image decoding and encoding: cv_image_decode (PNG and JPEG through codecs.cpp, OpenEXR depth
// through exr_decode.cpp, other OpenEXR through OpenCV), cv_image_write, cv_set_num_threads.

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "codecs.hpp"
#include "cvision.h"
#include "exr_decode.hpp"
#include "exr_header.hpp"
#include "status.hpp"

namespace {

using cvision::fail;
using cvision::loaded_once;

const uint8_t kPNGSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

uint32_t read_be32(const uint8_t *p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

bool is_png(const uint8_t *data, size_t size) {
  return size >= 8 && std::memcmp(data, kPNGSignature, 8) == 0;
}

bool is_jpeg(const uint8_t *data, size_t size) {
  return size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF;
}

bool is_exr(const uint8_t *data, size_t size) {
  return size >= 8 && data[0] == 0x76 && data[1] == 0x2F && data[2] == 0x31 && data[3] == 0x01;
}

/// The name of a format recognised by its magic bytes that CVision does not decode, or null.
const char *other_format(const uint8_t *data, size_t size) {
  auto starts = [&](const char *magic, size_t length) {
    return size >= length && std::memcmp(data, magic, length) == 0;
  };
  if (starts("BM", 2)) return "BMP";
  if (starts("II*\0", 4) || starts("MM\0*", 4)) return "TIFF";
  if (size >= 12 && starts("RIFF", 4) && std::memcmp(data + 8, "WEBP", 4) == 0) return "WebP";
  if (starts("GIF8", 4)) return "GIF";
  if (size >= 2 && data[0] == 'P' && data[1] >= '1' && data[1] <= '7') return "PNM";
  if (starts("\x00\x00\x00\x0CjP  ", 8) || starts("\xFF\x4F\xFF\x51", 4)) return "JPEG 2000";
  if (starts("#?RADIANCE", 10) || starts("#?RGBE", 6)) return "Radiance HDR";
  return nullptr;
}

/// Fails unless `width` x `height` is within CVision's documented maximum.
void check_dimensions(const char *format, int64_t width, int64_t height) {
  if (width > CV_IMAGE_MAX_DIMENSION || height > CV_IMAGE_MAX_DIMENSION ||
      width * height > int64_t(CV_IMAGE_MAX_PIXELS)) {
    fail(CV_ERR_DECODE, "%s header declares %lld x %lld pixels, more than the %d x %d (%d pixels) accepted", format,
         (long long)width, (long long)height, CV_IMAGE_MAX_DIMENSION, CV_IMAGE_MAX_DIMENSION, CV_IMAGE_MAX_PIXELS);
  }
}

/// ": TEXT" when `text` is not empty, for appending captured diagnostics to a message.
std::string suffix(const std::string &text) { return text.empty() ? "" : ": " + text; }

/// Walks the PNG chunks; throws unless every chunk is complete up to IEND.
void check_png_complete(const uint8_t *data, size_t size) {
  size_t offset = 8;
  while (true) {
    if (offset + 8 > size) fail(CV_ERR_DECODE, "truncated PNG data (no IEND chunk)");
    uint32_t length = read_be32(data + offset);
    bool is_end = std::memcmp(data + offset + 4, "IEND", 4) == 0;
    // length (4) + type (4) + data + CRC (4)
    size_t chunk_end = offset + 12 + static_cast<size_t>(length);
    if (length > 0x7FFFFFFFu || chunk_end > size) {
      fail(CV_ERR_DECODE, "truncated PNG data (chunk at byte %zu runs past the end; no IEND chunk)", offset);
    }
    if (is_end) return;
    offset = chunk_end;
  }
}

/// Requires the EOI marker (FF D9) at the end, allowing zero padding after it.
void check_jpeg_complete(const uint8_t *data, size_t size) {
  size_t end = size;
  while (end > 0 && data[end - 1] == 0) --end;
  if (end < 4 || data[end - 2] != 0xFF || data[end - 1] != 0xD9) {
    fail(CV_ERR_DECODE, "truncated JPEG data (no end-of-image marker FFD9)");
  }
}

/// Size of a PNG from its IHDR chunk: width, height, and whether it is
/// single-channel 16-bit (grey, bit depth 16). Returns false when unreadable.
bool png_header(const uint8_t *data, size_t size, int *width, int *height, bool *gray16) {
  if (size < 33 || std::memcmp(data + 12, "IHDR", 4) != 0) return false;
  uint32_t w = read_be32(data + 16), h = read_be32(data + 20);
  if (w == 0 || h == 0 || w > 0x7FFFFFFFu || h > 0x7FFFFFFFu) return false;
  check_dimensions("PNG", w, h);
  *width = int(w);
  *height = int(h);
  *gray16 = data[24] == 16 && data[25] == 0;
  return true;
}

/// Size of a baseline or progressive JPEG from its SOF marker. Returns false when not found.
bool jpeg_header(const uint8_t *data, size_t size, int *width, int *height) {
  size_t offset = 2;
  while (offset + 4 <= size) {
    if (data[offset] != 0xFF) return false;
    uint8_t marker = data[offset + 1];
    if (marker == 0xFF) {  // fill byte
      ++offset;
      continue;
    }
    if (marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) {
      offset += 2;
      continue;
    }
    size_t length = (size_t(data[offset + 2]) << 8) | data[offset + 3];
    bool is_sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (is_sof) {
      if (offset + 9 > size) return false;
      int h = (int(data[offset + 5]) << 8) | data[offset + 6];
      int w = (int(data[offset + 7]) << 8) | data[offset + 8];
      if (w <= 0 || h <= 0) return false;
      check_dimensions("JPEG", w, h);
      *width = w;
      *height = h;
      return true;
    }
    if (marker == 0xDA || length < 2) return false;  // start of scan before any SOF
    offset += 2 + length;
  }
  return false;
}

void fill_info(cv_image_info *info, int width, int height, int channels, int bytes_per_channel) {
  info->width = width;
  info->height = height;
  info->channels = channels;
  info->bytes_per_channel = bytes_per_channel;
  info->byte_count = int64_t(width) * height * channels * bytes_per_channel;
}

/// OpenCV's image codecs module (libopencv_imgcodecs), loaded on first use instead of linked: only
/// OpenEXR decoding and image writing go through it, and on Debian it brings about 120 more shared
/// libraries (GDAL, Poppler, HDF5, ...) that every process would otherwise map and relocate at
/// start-up. (`arsim --help` with all of Debian's OpenCV modules linked: 381 libraries, 0.14 Gcycles in
/// the dynamic loader, 0.63 s wall on 2 loaded cores; with CVision's five modules and this: 167, 0.02
/// Gcycles, 0.11 s.) The library is the one beside the libopencv_core this process runs with (same
/// folder, same version suffix); the entry points are found by their Itanium-mangled names, and the
/// declarations below must match OpenCV's headers (checked at compile time).
class ImageCodecs {
 public:
  using Decode = cv::Mat (*)(cv::InputArray, int);
  using Write = bool (*)(const cv::String &, cv::InputArray, const std::vector<int> &);
  // These casts compile only while OpenCV's headers declare exactly these overloads (unevaluated
  // operands: no reference to the symbols reaches the linker).
  using DecodeDeclared = decltype(static_cast<Decode>(&cv::imdecode));
  using WriteDeclared = decltype(static_cast<Write>(&cv::imwrite));

  Decode decode = nullptr;
  Write write = nullptr;

  /// The loaded module; fails (CV_ERR_INTERNAL) naming the library when it cannot be loaded.
  static const ImageCodecs &shared() {
    return loaded_once<ImageCodecs>(CV_ERR_INTERNAL, [](ImageCodecs &codecs) { return codecs.load(); });
  }

 private:
  /// Loads the module and its entry points; returns what went wrong, or an empty string.
  std::string load() {
    Dl_info core{};
    if (dladdr(reinterpret_cast<void *>(&cv::getVersionString), &core) == 0 || core.dli_fname == nullptr) {
      return "OpenCV's image codecs: cannot locate the loaded libopencv_core";
    }
    std::string path = core.dli_fname;
    const std::string core_name = "libopencv_core", codecs_name = "libopencv_imgcodecs";
    const size_t at = path.rfind(core_name);
    if (at == std::string::npos) return "OpenCV's image codecs: libopencv_core is loaded as " + path;
    path.replace(at, core_name.size(), codecs_name);
    void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char *error = dlerror();
      return "OpenCV's image codecs: " + (error != nullptr ? std::string(error) : path + " does not load");
    }
    decode = reinterpret_cast<Decode>(dlsym(library, "_ZN2cv8imdecodeERKNS_11_InputArrayEi"));
    write = reinterpret_cast<Write>(dlsym(
        library,
        "_ZN2cv7imwriteERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEERKNS_11_InputArrayERKSt6vectorIiSaIiEE"));
    if (decode == nullptr || write == nullptr) return "OpenCV's image codecs: " + path + " lacks imdecode or imwrite";
    return "";
  }
};

std::string lowercase_extension(const std::string &path) {
  size_t dot = path.find_last_of('.');
  size_t slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string extension = path.substr(dot);
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return extension;
}

}  // namespace

namespace {

/// cv_image_decode, cv_image_decode_reduced and cv_image_decode_reference: `reduction` 1 decodes at
/// the stored size; `reference` decodes PNG and JPEG with OpenCV instead of codecs.cpp.
int32_t decode_image(const char *function, const uint8_t *data, size_t size, int32_t mode, int32_t reduction,
                     bool reference, uint8_t *out, size_t capacity, cv_image_info *info,
                     cv_status *status) noexcept {
  return cvision::guarded(status, function, [&](cv_status *) -> int32_t {
    cvision::require_pointer(info, "info");
    std::memset(info, 0, sizeof(*info));
    if (size > 0) cvision::require_pointer(data, "data");
    if (mode != CV_DECODE_GRAY8 && mode != CV_DECODE_RGB8 && mode != CV_DECODE_DEPTH16 && mode != CV_DECODE_FLOAT32) {
      fail(CV_ERR_INVALID_ARGUMENT,
           "mode must be CV_DECODE_GRAY8, CV_DECODE_RGB8, CV_DECODE_DEPTH16 or CV_DECODE_FLOAT32 (got %d)", mode);
    }
    // OpenCV reads OpenEXR only when this setting is on (read once, at the codec's first use).
    if (mode == CV_DECODE_FLOAT32) setenv("OPENCV_IO_ENABLE_OPENEXR", "1", 0);
    if (reduction != 1 && reduction != 2 && reduction != 4 && reduction != 8) {
      fail(CV_ERR_INVALID_ARGUMENT, "reduction must be 1, 2, 4 or 8 (got %d)", reduction);
    }
    if (capacity > 0) cvision::require_pointer(out, "out");
    if (size == 0) fail(CV_ERR_DECODE, "empty image data (0 bytes)");
    if (size > size_t(INT32_MAX)) fail(CV_ERR_INVALID_ARGUMENT, "size is too large (%zu bytes)", size);

    const int channels = mode == CV_DECODE_RGB8 ? 3 : 1;
    const int bytes_per_channel = mode == CV_DECODE_DEPTH16 ? 2 : mode == CV_DECODE_FLOAT32 ? 4 : 1;

    // Format by magic bytes, truncation checks, and the size from the header: bounded before any
    // allocation, and a cheap answer when the caller's buffer is too small (no decode).
    cvision::quiet_libraries();
    int width = 0, height = 0;
    bool known_size = false;
    if (is_png(data, size)) {
      check_png_complete(data, size);
      bool gray16 = false;
      if (!png_header(data, size, &width, &height, &gray16)) fail(CV_ERR_DECODE, "PNG header (IHDR) is unreadable");
      // Else the decode reports the type (float images are checked after decoding).
      known_size = !(mode == CV_DECODE_DEPTH16 && !gray16) && mode != CV_DECODE_FLOAT32;
    } else if (is_jpeg(data, size)) {
      check_jpeg_complete(data, size);
      if (!jpeg_header(data, size, &width, &height)) fail(CV_ERR_DECODE, "JPEG has no readable frame header (SOF)");
      known_size = mode != CV_DECODE_DEPTH16 && mode != CV_DECODE_FLOAT32;
    } else if (is_exr(data, size)) {
      // The whole header, then the window sizes, then what they imply for the offset table and chunks.
      const cvision::ExrHeader exr = cvision::read_exr_header(data, size);
      check_dimensions("OpenEXR", exr.width, exr.height);
      check_dimensions("OpenEXR displayWindow", exr.display_width, exr.display_height);
      cvision::check_exr_chunks(exr, data, size);
      // Depth is one channel chosen by name and decoded by OpenEXR's own library (exr_decode.cpp).
      if (mode == CV_DECODE_FLOAT32) {
        cvision::decode_exr_depth(data, size, exr, out, capacity, info);
        return CV_OK;
      }
      width = int(exr.width);
      height = int(exr.height);
    } else if (const char *format = other_format(data, size)) {
      fail(CV_ERR_DECODE, "%s data; only PNG, JPEG and OpenEXR images are read", format);
    } else {
      fail(CV_ERR_DECODE, "not a PNG, JPEG or OpenEXR image (unrecognised first bytes)");
    }
    // The JPEG decoder checks the header's size and gets it unreduced; `width` and `height` are the output's.
    const int stored_width = width, stored_height = height;
    if (reduction != 1) {
      if (!is_jpeg(data, size)) fail(CV_ERR_INVALID_ARGUMENT, "only JPEG images are decoded reduced");
      width = (width + reduction - 1) / reduction;
      height = (height + reduction - 1) / reduction;
    }
    if (known_size) {
      fill_info(info, width, height, channels, bytes_per_channel);
      if (uint64_t(info->byte_count) > capacity) {
        cvision::fail(CV_ERR_BUFFER_TOO_SMALL, "output buffer holds %zu bytes; the image needs %lld", capacity,
                      (long long)info->byte_count);
      }
    }

    if (!reference && (is_png(data, size) || is_jpeg(data, size))) {
      const bool png = is_png(data, size);
      if (mode == CV_DECODE_FLOAT32) {
        fail(CV_ERR_DECODE, "expected a single-channel float image (OpenEXR), got %s data", png ? "PNG" : "JPEG");
      }
      if (png) {
        cvision::decode_png(data, size, mode, out);
      } else {
        cvision::decode_jpeg(data, size, mode, out, stored_width, stored_height, reduction);
      }
      fill_info(info, width, height, channels, bytes_per_channel);
      return CV_OK;
    }

    const cv::Mat encoded(1, int(size), CV_8UC1, const_cast<uint8_t *>(data));
    int flags = cv::IMREAD_IGNORE_ORIENTATION;
    switch (mode) {
      case CV_DECODE_GRAY8: flags |= cv::IMREAD_GRAYSCALE; break;
      case CV_DECODE_RGB8: flags |= cv::IMREAD_COLOR; break;
      default: flags = cv::IMREAD_UNCHANGED; break;
    }
    const ImageCodecs &codecs = ImageCodecs::shared();
    cv::Mat decoded;
    std::string diagnostics;
    {
      cvision::StderrCapture capture;
      try {
        decoded = codecs.decode(encoded, flags);
      } catch (const cv::Exception &error) {
        decoded.release();
        diagnostics = error.err;
      }
      const std::string printed = capture.finish();
      if (!printed.empty()) diagnostics = diagnostics.empty() ? printed : printed + "; " + diagnostics;
    }
    if (decoded.empty()) fail(CV_ERR_DECODE, "not a decodable image%s", suffix(diagnostics).c_str());
    if (decoded.cols != width || decoded.rows != height) {
      fail(CV_ERR_DECODE, "decoded %d x %d pixels but the header declares %d x %d", decoded.cols, decoded.rows,
           width, height);
    }

    if (mode == CV_DECODE_DEPTH16 && decoded.type() != CV_16UC1) {
      fail(CV_ERR_DECODE, "expected a single-channel 16-bit image (CV_16UC1), got %s",
           cv::typeToString(decoded.type()).c_str());
    }
    if (mode == CV_DECODE_FLOAT32 && decoded.type() != CV_32FC1) {
      fail(CV_ERR_DECODE, "expected a single-channel float image (CV_32FC1), got %s",
           cv::typeToString(decoded.type()).c_str());
    }
    if (mode == CV_DECODE_RGB8) cv::cvtColor(decoded, decoded, cv::COLOR_BGR2RGB);
    const int expected_depth = bytes_per_channel == 4 ? CV_32F : bytes_per_channel == 2 ? CV_16U : CV_8U;
    if (decoded.depth() != expected_depth || decoded.channels() != channels) {
      fail(CV_ERR_INTERNAL, "decoder returned %s for mode %d", cv::typeToString(decoded.type()).c_str(), mode);
    }

    fill_info(info, decoded.cols, decoded.rows, channels, bytes_per_channel);
    if (uint64_t(info->byte_count) > capacity) {
      fail(CV_ERR_BUFFER_TOO_SMALL, "output buffer holds %zu bytes; the image needs %lld", capacity,
           (long long)info->byte_count);
    }
    const size_t row_bytes = size_t(decoded.cols) * channels * bytes_per_channel;
    for (int y = 0; y < decoded.rows; ++y) {
      std::memcpy(out + size_t(y) * row_bytes, decoded.ptr(y), row_bytes);
    }
    return CV_OK;
  });
}

}  // namespace

extern "C" int32_t cv_image_decode(const uint8_t *data, size_t size, int32_t mode, uint8_t *out,
                                   size_t capacity, cv_image_info *info, cv_status *status) noexcept {
  return decode_image("cv_image_decode", data, size, mode, 1, false, out, capacity, info, status);
}

extern "C" int32_t cv_image_decode_reduced(const uint8_t *data, size_t size, int32_t mode, int32_t reduction,
                                           uint8_t *out, size_t capacity, cv_image_info *info,
                                           cv_status *status) noexcept {
  return decode_image("cv_image_decode_reduced", data, size, mode, reduction, false, out, capacity, info, status);
}

extern "C" int32_t cv_image_decode_reference(const uint8_t *data, size_t size, int32_t mode, uint8_t *out,
                                             size_t capacity, cv_image_info *info, cv_status *status) noexcept {
  return decode_image("cv_image_decode_reference", data, size, mode, 1, true, out, capacity, info, status);
}

extern "C" int32_t cv_image_write(const char *path, const uint8_t *pixels, int32_t width, int32_t height,
                                  int32_t channels, int32_t bytes_per_channel, int32_t quality,
                                  cv_status *status) noexcept {
  return cvision::guarded(status, "cv_image_write", [&](cv_status *) -> int32_t {
    cvision::require_pointer(path, "path");
    cvision::require_pointer(pixels, "pixels");
    if (width <= 0 || height <= 0) {
      fail(CV_ERR_INVALID_ARGUMENT, "width and height must be positive (got %d x %d)", width, height);
    }
    if (channels != 1 && channels != 3) fail(CV_ERR_INVALID_ARGUMENT, "channels must be 1 or 3 (got %d)", channels);
    if (bytes_per_channel != 1 && bytes_per_channel != 2 && bytes_per_channel != 4) {
      fail(CV_ERR_INVALID_ARGUMENT, "bytes_per_channel must be 1, 2 or 4 (got %d)", bytes_per_channel);
    }
    const std::string extension = lowercase_extension(path);
    std::vector<int> parameters;
    if ((bytes_per_channel == 4) != (extension == ".exr")) {
      fail(CV_ERR_INVALID_ARGUMENT, "4-byte (float) channels are written as .exr, and .exr only holds them");
    }
    if (extension == ".exr") {
      if (channels != 1) fail(CV_ERR_INVALID_ARGUMENT, "EXR output takes one float channel (got %d)", channels);
      setenv("OPENCV_IO_ENABLE_OPENEXR", "1", 0);
      parameters = {cv::IMWRITE_EXR_TYPE, cv::IMWRITE_EXR_TYPE_FLOAT};
    } else if (extension == ".png") {
      if (quality < 0 || quality > 9) {
        fail(CV_ERR_INVALID_ARGUMENT, "quality (PNG compression level) must be in 0...9 (got %d)", quality);
      }
      parameters = {cv::IMWRITE_PNG_COMPRESSION, quality};
    } else if (extension == ".jpg" || extension == ".jpeg") {
      if (quality < 1 || quality > 100) {
        fail(CV_ERR_INVALID_ARGUMENT, "quality (JPEG quality) must be in 1...100 (got %d)", quality);
      }
      if (bytes_per_channel != 1) fail(CV_ERR_INVALID_ARGUMENT, "JPEG cannot store 16-bit images; use .png");
      parameters = {cv::IMWRITE_JPEG_QUALITY, quality};
    } else {
      fail(CV_ERR_INVALID_ARGUMENT, "unsupported image extension '%s' in path (use .png, .jpg or .jpeg)",
           extension.c_str());
    }
    const int type = CV_MAKETYPE(bytes_per_channel == 4 ? CV_32F : bytes_per_channel == 2 ? CV_16U : CV_8U, channels);
    cv::Mat image(height, width, type, const_cast<uint8_t *>(pixels));
    cv::Mat bgr;
    if (channels == 3) {
      cv::cvtColor(image, bgr, cv::COLOR_RGB2BGR);
    } else {
      bgr = image;
    }
    cvision::quiet_libraries();
    const ImageCodecs &codecs = ImageCodecs::shared();
    bool written = false;
    std::string diagnostics;
    {
      cvision::StderrCapture capture;
      try {
        written = codecs.write(path, bgr, parameters);
      } catch (const cv::Exception &error) {
        diagnostics = error.err;
      }
      const std::string printed = capture.finish();
      if (!printed.empty()) diagnostics = diagnostics.empty() ? printed : printed + "; " + diagnostics;
    }
    if (!written) fail(CV_ERR_IO, "could not write image to %s%s", path, suffix(diagnostics).c_str());
    return CV_OK;
  });
}

extern "C" void cv_set_num_threads(int32_t threads) noexcept {
  try {
    cv::setNumThreads(threads);
  } catch (...) {
  }
}
