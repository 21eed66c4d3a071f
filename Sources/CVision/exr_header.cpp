// OpenEXR header validation (see exr_header.hpp). Layout (openexr.com, "OpenEXR File Layout"):
// magic, a version field, attributes (name, type, size, value) up to a NUL byte, then the
// line-offset table (one 64-bit offset per chunk of scanlines), then the chunks (scanline y, size,
// pixel data).

#include "exr_header.hpp"

#include <cmath>
#include <cstring>
#include <set>

#include "status.hpp"

namespace cvision {
namespace {

uint32_t le32(const uint8_t *p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}

int64_t le32s(const uint8_t *p) { return int32_t(le32(p)); }

uint64_t le64(const uint8_t *p) { return uint64_t(le32(p)) | (uint64_t(le32(p + 4)) << 32); }

float lef32(const uint8_t *p) {
  const uint32_t bits = le32(p);
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// Per compression (NONE, RLE, ZIPS, ZIP, PIZ, PXR24, B44, B44A, DWAA, DWAB): scanlines per chunk,
/// and the largest ratio of uncompressed to stored bytes it can reach (0: no useful bound). RLE
/// turns 2 bytes into at most 128, deflate reaches at most 1032:1 (PXR24 stores floats in 3 bytes
/// before deflating), B44A turns 3 bytes into a 32-byte block.
constexpr int kCompressions = 10;
constexpr int kLinesPerChunk[kCompressions] = {1, 1, 1, 16, 32, 16, 32, 32, 32, 256};
constexpr double kMaxRatio[kCompressions] = {1, 64, 1032, 1032, 0, 1376, 11, 11, 0, 0};

/// An attribute name or type from the data, with bytes outside printable ASCII as \xNN (so a
/// message stays on one line).
std::string printable(const std::string &text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7F) {
      out += char(c);
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof(escaped), "\\x%02X", c);
      out += escaped;
    }
  }
  return out;
}

/// Reads a NUL-terminated string of 1...`max_length` bytes at `*offset` and moves past it.
std::string read_string(const uint8_t *data, size_t size, size_t *offset, size_t max_length, const char *what) {
  const size_t start = *offset;
  const void *end = std::memchr(data + start, 0, std::min(size - start, max_length + 1));
  if (end == nullptr) {
    if (size - start <= max_length) fail(CV_ERR_DECODE, "OpenEXR header is truncated (in an %s)", what);
    fail(CV_ERR_DECODE, "OpenEXR header has an %s longer than %zu bytes (at byte %zu)", what, max_length, start);
  }
  const size_t length = size_t(static_cast<const uint8_t *>(end) - (data + start));
  if (length == 0) fail(CV_ERR_DECODE, "OpenEXR header has an empty %s (at byte %zu)", what, start);
  *offset = start + length + 1;
  return std::string(reinterpret_cast<const char *>(data + start), length);
}

/// A box2i value: xMin, yMin, xMax, yMax; fails unless max >= min.
void read_box(const uint8_t *value, const char *name, int64_t *x_min, int64_t *y_min, int64_t *width,
              int64_t *height) {
  *x_min = le32s(value);
  *y_min = le32s(value + 4);
  *width = le32s(value + 8) - *x_min + 1;
  *height = le32s(value + 12) - *y_min + 1;
  if (*width <= 0 || *height <= 0) {
    fail(CV_ERR_DECODE, "OpenEXR %s is empty (%lld x %lld pixels)", name, (long long)*width, (long long)*height);
  }
}

void read_channels(const uint8_t *value, size_t length, size_t max_name, ExrHeader *header) {
  size_t offset = 0;
  std::set<std::string> names;
  while (true) {
    if (offset >= length) fail(CV_ERR_DECODE, "OpenEXR channel list is truncated (no end byte)");
    if (value[offset] == 0) break;
    ExrChannel channel;
    channel.name = read_string(value, length, &offset, max_name, "channel name");
    if (length - offset < 16) fail(CV_ERR_DECODE, "OpenEXR channel list is truncated (in channel %zu)", names.size());
    channel.pixel_type = int32_t(le32(value + offset));
    channel.x_sampling = int32_t(le32(value + offset + 8));
    channel.y_sampling = int32_t(le32(value + offset + 12));
    offset += 16;
    const std::string name = printable(channel.name);
    if (channel.pixel_type < 0 || channel.pixel_type > 2) {
      fail(CV_ERR_DECODE, "OpenEXR channel '%s' has unknown pixel type %d (0 UINT, 1 HALF, 2 FLOAT)", name.c_str(),
           channel.pixel_type);
    }
    if (channel.x_sampling < 1 || channel.y_sampling < 1) {
      fail(CV_ERR_DECODE, "OpenEXR channel '%s' has sampling %d x %d (must be positive)", name.c_str(),
           channel.x_sampling, channel.y_sampling);
    }
    if (!names.insert(channel.name).second) fail(CV_ERR_DECODE, "OpenEXR channel '%s' is listed twice", name.c_str());
    if (names.size() > 64) fail(CV_ERR_DECODE, "OpenEXR channel list has more than 64 channels");
    header->channels.push_back(channel);
  }
  if (offset + 1 != length) fail(CV_ERR_DECODE, "OpenEXR channel list has %zu bytes after its end", length - offset - 1);
  if (names.empty()) fail(CV_ERR_DECODE, "OpenEXR channel list is empty");
}

/// The attributes every OpenEXR header has, with their types and value sizes (0: variable).
struct Required {
  const char *name;
  const char *type;
  uint32_t size;
};
constexpr Required kRequired[] = {
    {"channels", "chlist", 0},          {"compression", "compression", 1}, {"dataWindow", "box2i", 16},
    {"displayWindow", "box2i", 16},     {"lineOrder", "lineOrder", 1},     {"pixelAspectRatio", "float", 4},
    {"screenWindowCenter", "v2f", 8},   {"screenWindowWidth", "float", 4},
};
constexpr size_t kRequiredCount = sizeof(kRequired) / sizeof(kRequired[0]);

void read_required(size_t index, const uint8_t *value, uint32_t length, size_t max_name, ExrHeader *header) {
  int64_t x = 0, y = 0;
  switch (index) {
    case 0: read_channels(value, length, max_name, header); break;
    case 1:
      header->compression = value[0];
      if (header->compression >= kCompressions) {
        fail(CV_ERR_DECODE, "OpenEXR compression %d is unknown (0 NONE ... 9 DWAB)", header->compression);
      }
      break;
    case 2: read_box(value, "dataWindow", &header->x_min, &header->y_min, &header->width, &header->height); break;
    case 3: read_box(value, "displayWindow", &x, &y, &header->display_width, &header->display_height); break;
    case 4:
      if (value[0] > 1) fail(CV_ERR_DECODE, "OpenEXR lineOrder %d is not one for scanlines (0 or 1)", value[0]);
      break;
    case 5: {
      const float ratio = lef32(value);
      if (!(ratio >= 1e-6f && ratio <= 1e6f)) {
        fail(CV_ERR_DECODE, "OpenEXR pixelAspectRatio %g is outside 1e-6...1e6", double(ratio));
      }
      break;
    }
    case 6:
      if (!std::isfinite(lef32(value)) || !std::isfinite(lef32(value + 4))) {
        fail(CV_ERR_DECODE, "OpenEXR screenWindowCenter is not finite");
      }
      break;
    default: {
      const float width = lef32(value);
      if (!(width >= 0 && std::isfinite(width))) {
        fail(CV_ERR_DECODE, "OpenEXR screenWindowWidth %g is not a finite value >= 0", double(width));
      }
    }
  }
}

}  // namespace

ExrHeader read_exr_header(const uint8_t *data, size_t size) {
  const uint32_t version = le32(data + 4);
  if ((version & 0xFF) != 2) fail(CV_ERR_DECODE, "OpenEXR version %u is not read (only version 2)", version & 0xFF);
  if (version & 0x200) fail(CV_ERR_DECODE, "tiled OpenEXR images are not read (only scanline images)");
  if (version & 0x800) fail(CV_ERR_DECODE, "deep OpenEXR data is not read (only scanline images)");
  if (version & 0x1000) fail(CV_ERR_DECODE, "multi-part OpenEXR files are not read (only single-part images)");
  if (version & ~0x4FFu) fail(CV_ERR_DECODE, "OpenEXR version field has unknown flags (0x%08X)", version);
  const size_t max_name = (version & 0x400) ? 255 : 31;

  ExrHeader header;
  bool seen[kRequiredCount] = {};
  size_t offset = 8;
  while (true) {
    if (offset >= size) fail(CV_ERR_DECODE, "OpenEXR header is truncated (no end of header)");
    if (data[offset] == 0) break;
    const std::string name = read_string(data, size, &offset, max_name, "attribute name");
    const std::string type = read_string(data, size, &offset, max_name, "attribute type");
    if (size - offset < 4) fail(CV_ERR_DECODE, "OpenEXR header is truncated (in attribute '%s')", printable(name).c_str());
    const uint32_t length = le32(data + offset);
    offset += 4;
    if (length > size - offset) {
      fail(CV_ERR_DECODE, "OpenEXR attribute '%s' declares %u bytes; %zu are left in the data", printable(name).c_str(),
           length, size - offset);
    }
    for (size_t i = 0; i < kRequiredCount; ++i) {
      if (name != kRequired[i].name) continue;
      if (seen[i]) fail(CV_ERR_DECODE, "OpenEXR attribute '%s' appears twice", kRequired[i].name);
      if (type != kRequired[i].type || (kRequired[i].size != 0 && length != kRequired[i].size)) {
        fail(CV_ERR_DECODE, "OpenEXR attribute '%s' is a %u-byte '%s' (expected %s)", kRequired[i].name, length,
             printable(type).c_str(), kRequired[i].type);
      }
      seen[i] = true;
      read_required(i, data + offset, length, max_name, &header);
    }
    offset += length;
  }
  for (size_t i = 0; i < kRequiredCount; ++i) {
    if (!seen[i]) fail(CV_ERR_DECODE, "OpenEXR header has no '%s' attribute", kRequired[i].name);
  }
  header.header_end = offset + 1;
  return header;
}

void check_exr_chunks(const ExrHeader &header, const uint8_t *data, size_t size) {
  // Bytes per scanline y of the data window, for each channel's sampling (width and height are at
  // most CV_IMAGE_MAX_DIMENSION here, so none of this overflows).
  int64_t total = 0;
  for (const ExrChannel &channel : header.channels) {
    if (header.x_min % channel.x_sampling != 0 || header.width % channel.x_sampling != 0 ||
        header.y_min % channel.y_sampling != 0 || header.height % channel.y_sampling != 0) {
      fail(CV_ERR_DECODE, "OpenEXR channel '%s' sampling %d x %d does not divide the data window",
           printable(channel.name).c_str(), channel.x_sampling, channel.y_sampling);
    }
    total += header.width / channel.x_sampling * (header.height / channel.y_sampling) *
             (channel.pixel_type == 1 ? 2 : 4);
  }
  const int64_t max_bytes = int64_t(4) * CV_IMAGE_MAX_PIXELS;
  if (total > max_bytes) {
    fail(CV_ERR_DECODE, "OpenEXR channels hold %lld bytes of pixels, more than the %lld accepted", (long long)total,
         (long long)max_bytes);
  }
  const int64_t lines = kLinesPerChunk[header.compression];
  const int64_t chunks = (header.height + lines - 1) / lines;
  const size_t table_end = header.header_end + size_t(chunks) * 8;
  if (table_end > size) {
    fail(CV_ERR_DECODE, "OpenEXR line-offset table (%lld entries) runs past the end of the data (%zu bytes)",
         (long long)chunks, size);
  }
  for (int64_t i = 0; i < chunks; ++i) {
    const uint64_t chunk = le64(data + header.header_end + size_t(i) * 8);
    if (chunk < table_end || chunk > size - 8) {
      fail(CV_ERR_DECODE, "OpenEXR line offset %lld (%llu) is outside the pixel data (bytes %zu...%zu)",
           (long long)i, (unsigned long long)chunk, table_end, size);
    }
    const int64_t y = le32s(data + chunk);
    const int64_t stored = le32s(data + chunk + 4);
    const int64_t first = header.y_min + i * lines;
    if (y != first) {
      fail(CV_ERR_DECODE, "OpenEXR chunk %lld starts at scanline %lld; expected %lld", (long long)i, (long long)y,
           (long long)first);
    }
    const int64_t last = std::min(first + lines, header.y_min + header.height) - 1;
    int64_t unpacked = 0;
    for (const ExrChannel &channel : header.channels) {
      // Scanlines y in [first, last] with y % y_sampling == 0 (y may be negative).
      const int64_t s = channel.y_sampling;
      auto floor_div = [s](int64_t v) { return v >= 0 ? v / s : -((-v + s - 1) / s); };
      const int64_t rows = floor_div(last) - floor_div(first - 1);
      unpacked += rows * (header.width / channel.x_sampling) * (channel.pixel_type == 1 ? 2 : 4);
    }
    const double ratio = kMaxRatio[header.compression];
    if (stored < 0 || uint64_t(stored) > size - chunk - 8 || stored > unpacked || (stored == 0 && unpacked > 0) ||
        (ratio > 0 && double(stored) * ratio < double(unpacked))) {
      fail(CV_ERR_DECODE,
           "OpenEXR chunk %lld stores %lld bytes for %lld bytes of pixels (%zu left in the data, compression %d)",
           (long long)i, (long long)stored, (long long)unpacked, size - chunk - 8, header.compression);
    }
  }
}

}  // namespace cvision
