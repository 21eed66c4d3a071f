// Library diagnostics folded into CVision's statuses: OpenCV's logger silenced, and whatever libpng
// or libjpeg print on stderr during a decode captured (fd 2 redirected to a memory file) instead of
// reaching the terminal. (Video goes through FFmpeg's libraries directly: see ffmpeg.hpp.)

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include <opencv2/core/utils/logger.hpp>

#include "status.hpp"

namespace cvision {

void quiet_libraries() noexcept {
  static std::once_flag once;
  std::call_once(once, [] {
    try {
      cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
    } catch (...) {
    }
    // A second bound behind CVision's own header check (see cv_image_decode).
    ::setenv("OPENCV_IO_MAX_IMAGE_PIXELS", std::to_string(CV_IMAGE_MAX_PIXELS).c_str(), 0);
  });
}

namespace {
std::mutex capture_mutex;
}

StderrCapture::StderrCapture() noexcept {
  capture_mutex.lock();
  std::fflush(stderr);
  file_ = ::memfd_create("cvision-diagnostics", MFD_CLOEXEC);
  if (file_ < 0) return;
  saved_ = ::dup(STDERR_FILENO);
  if (saved_ < 0 || ::dup2(file_, STDERR_FILENO) < 0) {
    if (saved_ >= 0) ::close(saved_);
    ::close(file_);
    saved_ = file_ = -1;
  }
}

std::string StderrCapture::finish() noexcept {
  std::string text;
  if (file_ >= 0) {
    std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
    char buffer[512];
    ::lseek(file_, 0, SEEK_SET);
    ssize_t count;
    while (text.size() < 4096 && (count = ::read(file_, buffer, sizeof(buffer))) > 0) {
      try {
        text.append(buffer, size_t(count));
      } catch (...) {
        break;
      }
    }
    ::close(file_);
    saved_ = file_ = -1;
  }
  if (!finished_) {
    finished_ = true;
    capture_mutex.unlock();
  }
  // One line: newlines become "; ", trailing separators dropped.
  std::string line;
  for (char c : text) {
    if (c == '\n' || c == '\r') {
      if (!line.empty() && line.back() != ' ') line += "; ";
    } else if (static_cast<unsigned char>(c) >= 0x20) {
      line += c;
    }
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == ';')) line.pop_back();
  return line;
}

StderrCapture::~StderrCapture() { finish(); }

}  // namespace cvision
