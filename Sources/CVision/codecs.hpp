// PNG and JPEG decoders (codecs.cpp) behind cv_image_decode. Both expect data whose magic bytes,
// completeness (IEND, FFD9) and declared size cv_image_decode has checked, and throw a Failure on
// anything they cannot decode.

#ifndef ARSIM_CVISION_CODECS_HPP
#define ARSIM_CVISION_CODECS_HPP

#include <cstddef>
#include <cstdint>

namespace cvision {

/// Decodes a PNG (every colour type and bit depth, interlaced or not) into `out`, tightly packed,
/// as `mode` asks (CV_DECODE_GRAY8: grey with libpng's BT.601 weights; CV_DECODE_RGB8; CV_DECODE_DEPTH16:
/// only 16-bit grey, native byte order). 16-bit samples become 8-bit by their high byte; alpha is dropped.
/// `out` holds the header's width x height pixels of the mode.
void decode_png(const uint8_t *data, size_t size, int32_t mode, uint8_t *out);

/// Decodes a grey or colour JPEG into `out` as grey (CV_DECODE_GRAY8) or R, G, B (CV_DECODE_RGB8),
/// `width` x `height` pixels (the frame header's) reduced by `reduction` (1, 2, 4 or 8: libjpeg's DCT
/// scaling) to ceil(width / reduction) x ceil(height / reduction). Other modes and CMYK JPEGs are rejected.
void decode_jpeg(const uint8_t *data, size_t size, int32_t mode, uint8_t *out, int width, int height,
                 int reduction);

}  // namespace cvision

#endif
