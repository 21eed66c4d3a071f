// OpenEXR depth decoding and encoding with OpenEXR's own C library (OpenEXRCore, Debian's
// libopenexr-dev), from and to memory: no temporary file, nothing printed.

#ifndef ARSIM_CVISION_EXR_DECODE_HPP
#define ARSIM_CVISION_EXR_DECODE_HPP

#include <cstddef>
#include <cstdint>

#include "cvision.h"
#include "exr_header.hpp"

namespace cvision {

/// The index in `header.channels` of the depth channel: a lone channel whatever its name; among
/// several, the one named Z, D or depth (any case) when exactly one is. Throws a Failure
/// (CV_ERR_DECODE, one line naming the channels) when none or several qualify, when the channel
/// holds UINT samples, or when it is subsampled.
size_t exr_depth_channel(const ExrHeader &header);

/// Decodes the depth channel (exr_depth_channel) of OpenEXR data whose header `header` was read and
/// checked (read_exr_header, window limits, check_exr_chunks) into `out` as 32-bit floats, row-major
/// (HALF samples widened exactly). Fills `info` (1 channel, 4 bytes); when `capacity` (bytes) is too
/// small, throws CV_ERR_BUFFER_TOO_SMALL before decoding anything. Decoding errors are one line
/// (CV_ERR_DECODE) naming the problem, with nothing printed.
void decode_exr_depth(const uint8_t *data, size_t size, const ExrHeader &header, uint8_t *out, size_t capacity,
                      cv_image_info *info);

/// A 16-bit IEEE half float widened to float (exact: every half is a float).
float half_to_float(uint16_t half) noexcept;

/// A float narrowed to the nearest 16-bit IEEE half float (ties to even; out of range: infinity; NaN
/// stays NaN).
uint16_t float_to_half(float value) noexcept;

}  // namespace cvision

#endif
