// Video reading and writing through cv::VideoCapture / cv::VideoWriter.

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "cvision.h"
#include "status.hpp"

using cvision::fail;

struct cv_video {
  cv::VideoCapture capture;
  int32_t width = 0;
  int32_t height = 0;
  double fps = 0;
  int64_t next_index = 0;
  /// False once the container proved not to carry usable timestamps.
  bool container_timestamps = true;
  double last_timestamp = -1;
};

struct cv_video_writer {
  cv::VideoWriter writer;
  int32_t width = 0;
  int32_t height = 0;
  /// Whether the encoder's own log lines are captured (x265 prints them).
  bool quiet = false;
};

extern "C" cv_video *cv_video_open(const char *path, cv_video_info *info, cv_status *status) noexcept {
  cv_video *result = nullptr;
  cvision::guarded(status, "cv_video_open", [&](cv_status *) -> int32_t {
    cvision::require_pointer(path, "path");
    cvision::require_pointer(info, "info");
    std::memset(info, 0, sizeof(*info));
    auto video = std::make_unique<cv_video>();
    struct stat file_status;
    if (::stat(path, &file_status) != 0) fail(CV_ERR_IO, "could not open video %s: %s", path, std::strerror(errno));
    if (!S_ISREG(file_status.st_mode)) fail(CV_ERR_IO, "video %s is not a regular file", path);
    // FFmpeg only (it reads timestamps); what it prints while probing is captured.
    cvision::quiet_libraries();
    bool opened = false;
    std::string diagnostics;
    {
      cvision::StderrCapture capture;
      try {
        opened = video->capture.open(path, cv::CAP_FFMPEG) && video->capture.isOpened();
      } catch (const cv::Exception &error) {
        diagnostics = error.err;
      }
      const std::string printed = capture.finish();
      if (!printed.empty()) diagnostics = diagnostics.empty() ? printed : printed + "; " + diagnostics;
    }
    if (!opened) {
      fail(CV_ERR_IO, "could not open video %s (FFmpeg cannot read it)%s%s", path, diagnostics.empty() ? "" : ": ",
           diagnostics.c_str());
    }
    video->width = int32_t(video->capture.get(cv::CAP_PROP_FRAME_WIDTH));
    video->height = int32_t(video->capture.get(cv::CAP_PROP_FRAME_HEIGHT));
    double fps = video->capture.get(cv::CAP_PROP_FPS);
    video->fps = std::isfinite(fps) && fps > 0 ? fps : 0;
    if (video->width <= 0 || video->height <= 0) {
      fail(CV_ERR_DECODE, "video %s reports no frame size (%d x %d)", path, video->width, video->height);
    }
    if (video->width > CV_IMAGE_MAX_DIMENSION || video->height > CV_IMAGE_MAX_DIMENSION ||
        int64_t(video->width) * video->height > int64_t(CV_IMAGE_MAX_PIXELS)) {
      fail(CV_ERR_DECODE, "video %s has %d x %d frames, more than the %d pixels accepted", path, video->width,
           video->height, CV_IMAGE_MAX_PIXELS);
    }
    double frames = video->capture.get(cv::CAP_PROP_FRAME_COUNT);
    info->width = video->width;
    info->height = video->height;
    info->fps = video->fps;
    info->frame_count = std::isfinite(frames) && frames > 0 ? int64_t(frames) : 0;
    result = video.release();
    return CV_OK;
  });
  return result;
}

extern "C" int32_t cv_video_read(cv_video *video, int32_t mode, uint8_t *out, size_t capacity,
                                 double *timestamp_seconds, cv_status *status) noexcept {
  int32_t outcome = -1;
  cvision::guarded(status, "cv_video_read", [&](cv_status *) -> int32_t {
    cvision::require_pointer(video, "video");
    cvision::require_pointer(out, "out");
    cvision::require_pointer(timestamp_seconds, "timestamp_seconds");
    if (mode != CV_DECODE_GRAY8 && mode != CV_DECODE_RGB8) {
      fail(CV_ERR_INVALID_ARGUMENT, "mode must be CV_DECODE_GRAY8 or CV_DECODE_RGB8 (got %d)", mode);
    }
    const int channels = mode == CV_DECODE_RGB8 ? 3 : 1;
    const size_t needed = size_t(video->width) * video->height * channels;
    if (capacity < needed) {
      fail(CV_ERR_BUFFER_TOO_SMALL, "output buffer holds %zu bytes; a frame needs %zu", capacity, needed);
    }
    cv::Mat frame;
    if (!video->capture.read(frame) || frame.empty()) {
      outcome = 0;
      return CV_OK;
    }
    if (frame.cols != video->width || frame.rows != video->height) {
      fail(CV_ERR_DECODE, "frame %lld is %d x %d but the video is %d x %d", (long long)video->next_index,
           frame.cols, frame.rows, video->width, video->height);
    }
    if (frame.depth() != CV_8U) {
      fail(CV_ERR_DECODE, "frame %lld has unsupported type %s", (long long)video->next_index,
           cv::typeToString(frame.type()).c_str());
    }
    cv::Mat converted;
    switch (frame.channels()) {
      case 1:
        if (channels == 1) converted = frame;
        else cv::cvtColor(frame, converted, cv::COLOR_GRAY2RGB);
        break;
      case 3: cv::cvtColor(frame, converted, channels == 1 ? cv::COLOR_BGR2GRAY : cv::COLOR_BGR2RGB); break;
      case 4: cv::cvtColor(frame, converted, channels == 1 ? cv::COLOR_BGRA2GRAY : cv::COLOR_BGRA2RGB); break;
      default:
        fail(CV_ERR_DECODE, "frame %lld has %d channels", (long long)video->next_index, frame.channels());
    }
    const size_t row_bytes = size_t(video->width) * channels;
    for (int y = 0; y < converted.rows; ++y) std::memcpy(out + y * row_bytes, converted.ptr(y), row_bytes);

    // Presentation time: the container's, unless it has none (then index / fps).
    const int64_t index = video->next_index++;
    double timestamp = video->capture.get(cv::CAP_PROP_POS_MSEC) / 1000.0;
    if (video->container_timestamps &&
        (!std::isfinite(timestamp) || timestamp < 0 || (index > 0 && timestamp <= video->last_timestamp))) {
      video->container_timestamps = false;
    }
    if (!video->container_timestamps) {
      if (video->fps <= 0) {
        fail(CV_ERR_DECODE, "video has neither timestamps nor a frame rate (frame %lld)", (long long)index);
      }
      timestamp = double(index) / video->fps;
    }
    video->last_timestamp = timestamp;
    *timestamp_seconds = timestamp;
    outcome = 1;
    return CV_OK;
  });
  return outcome;
}

extern "C" void cv_video_close(cv_video *video) noexcept {
  if (video == nullptr) return;
  try {
    video->capture.release();
  } catch (...) {
  }
  delete video;
}

extern "C" cv_video_writer *cv_video_writer_open(const char *path, int32_t width, int32_t height, double fps,
                                                 int32_t codec, cv_status *status) noexcept {
  cv_video_writer *result = nullptr;
  cvision::guarded(status, "cv_video_writer_open", [&](cv_status *) -> int32_t {
    cvision::require_pointer(path, "path");
    if (width <= 0 || height <= 0) {
      fail(CV_ERR_INVALID_ARGUMENT, "width and height must be positive (got %d x %d)", width, height);
    }
    if (!std::isfinite(fps) || fps <= 0) fail(CV_ERR_INVALID_ARGUMENT, "fps must be positive and finite (got %g)", fps);
    if (codec != CV_VIDEO_CODEC_MPEG4 && codec != CV_VIDEO_CODEC_HEVC) {
      fail(CV_ERR_INVALID_ARGUMENT, "codec must be CV_VIDEO_CODEC_MPEG4 or CV_VIDEO_CODEC_HEVC (got %d)", codec);
    }
    cvision::quiet_libraries();
    auto writer = std::make_unique<cv_video_writer>();
    writer->width = width;
    writer->height = height;
    writer->quiet = codec == CV_VIDEO_CODEC_HEVC;
    const cv::Size size(width, height);
    // The codecs to try, in order: FFmpeg first, then whichever backend OpenCV finds.
    const char *const mpeg4[] = {"mp4v"};
    const char *const hevc[] = {"hvc1", "avc1"};
    const char *const *tags = codec == CV_VIDEO_CODEC_HEVC ? hevc : mpeg4;
    const int count = codec == CV_VIDEO_CODEC_HEVC ? 2 : 1;
    bool opened = false;
    for (int i = 0; i < count && !opened; ++i) {
      const int fourcc = cv::VideoWriter::fourcc(tags[i][0], tags[i][1], tags[i][2], tags[i][3]);
      // x265 prints its settings to stderr when it opens: keep them out of the user's terminal.
      cvision::StderrCapture capture;
      for (const int backend : {int(cv::CAP_FFMPEG), int(cv::CAP_ANY)}) {
        if (opened) break;
        try {
          opened = writer->writer.open(path, backend, fourcc, fps, size, true) && writer->writer.isOpened();
        } catch (const cv::Exception &) {
          opened = false;
        }
      }
    }
    if (!opened) {
      fail(CV_ERR_IO, "could not open an %s video writer for %s",
           codec == CV_VIDEO_CODEC_HEVC ? "HEVC (hvc1) or H.264 (avc1)" : "mp4v", path);
    }
    result = writer.release();
    return CV_OK;
  });
  return result;
}

extern "C" int32_t cv_video_writer_write(cv_video_writer *writer, const uint8_t *rgb, cv_status *status) noexcept {
  return cvision::guarded(status, "cv_video_writer_write", [&](cv_status *) -> int32_t {
    cvision::require_pointer(writer, "writer");
    cvision::require_pointer(rgb, "rgb");
    const cv::Mat frame(writer->height, writer->width, CV_8UC3, const_cast<uint8_t *>(rgb));
    cv::Mat bgr;
    cv::cvtColor(frame, bgr, cv::COLOR_RGB2BGR);
    writer->writer.write(bgr);
    return CV_OK;
  });
}

extern "C" void cv_video_writer_close(cv_video_writer *writer) noexcept {
  if (writer == nullptr) return;
  try {
    // x265 prints its statistics when it closes.
    std::unique_ptr<cvision::StderrCapture> capture;
    if (writer->quiet) capture = std::make_unique<cvision::StderrCapture>();
    writer->writer.release();
  } catch (...) {
  }
  delete writer;
}
