// OpenEXR header validation for cv_image_decode: the whole header is parsed and checked before
// OpenCV (and OpenEXR behind it) sees the bytes, so that no attribute, channel list or offset
// table can make the decoder allocate more than the image the header declares.

#ifndef ARSIM_CVISION_EXR_HEADER_HPP
#define ARSIM_CVISION_EXR_HEADER_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cvision {

/// One entry of an OpenEXR channel list.
struct ExrChannel {
  std::string name;
  int32_t pixel_type;  ///< 0 UINT (4 bytes), 1 HALF (2 bytes), 2 FLOAT (4 bytes)
  int32_t x_sampling;
  int32_t y_sampling;
};

/// The attributes of a single-part scanline OpenEXR header that decoding depends on.
struct ExrHeader {
  int64_t x_min = 0, y_min = 0, width = 0, height = 0;  ///< dataWindow, in pixels
  int64_t display_width = 0, display_height = 0;        ///< displayWindow, in pixels
  int compression = 0;                                  ///< 0 NONE ... 9 DWAB
  std::vector<ExrChannel> channels;
  size_t header_end = 0;  ///< offset of the line-offset table (just past the header's end byte)
};

/// Parses the header of OpenEXR data (magic already checked): version 2, single part, scanline;
/// every attribute complete within the data; the required attributes (channels, compression,
/// dataWindow, displayWindow, lineOrder, pixelAspectRatio, screenWindowCenter, screenWindowWidth)
/// present once each with their types, sizes and valid values; a channel list of 1 to 64 channels
/// of known pixel types. Throws a Failure (CV_ERR_DECODE, one line) naming the problem. The window
/// sizes are not bounded here: the caller checks them against CV_IMAGE_MAX_* before
/// check_exr_chunks.
ExrHeader read_exr_header(const uint8_t *data, size_t size);

/// Checks what the header implies for the rest of the data: channel sampling that divides the data
/// window, at most 4 * CV_IMAGE_MAX_PIXELS bytes of pixels, a line-offset table within the data whose
/// every entry points at a chunk of the right scanline, lying within the data, no larger than its
/// uncompressed size and, where the compression's ratio is bounded, not too small for it.
void check_exr_chunks(const ExrHeader &header, const uint8_t *data, size_t size);

}  // namespace cvision

#endif
