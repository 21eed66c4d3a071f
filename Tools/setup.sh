#!/usr/bin/env bash
# Installs what ARSim needs on a Debian machine that has the Swift toolchain:
# OpenCV, Eigen, libzip, libdeflate, libjpeg-turbo, OpenEXR, FFmpeg's libraries and FreeType (with the
# DejaVu fonts text meshes use) from Debian, found through
# pkg-config, and arsim-opencv4.pc (below). Idempotent; run as root (or with sudo available).
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists opencv4 eigen3 libzip libdeflate libjpeg OpenEXR libavformat libavcodec libswscale libavutil freetype2; then
  echo "setup: installing libopencv-dev libeigen3-dev libzip-dev libdeflate-dev libjpeg-dev libopenexr-dev libavformat-dev libavcodec-dev libswscale-dev libavutil-dev libfreetype-dev fonts-dejavu-core pkg-config (apt)" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends libopencv-dev libeigen3-dev libzip-dev libdeflate-dev libjpeg-dev libopenexr-dev libavformat-dev libavcodec-dev libswscale-dev libavutil-dev libfreetype-dev fonts-dejavu-core pkg-config >/dev/null
  pkg-config --exists opencv4 eigen3 libzip libdeflate libjpeg OpenEXR libavformat libavcodec libswscale libavutil freetype2
fi

# arsim-opencv4: opencv4's include path with only the OpenCV modules CVision links (the COpenCV target's
# pkg-config name). opencv4.pc lists all of Debian's ~55 modules, and SwiftPM links whatever a pkg-config
# file lists (it puts every linker flag after the libraries, so --as-needed cannot drop them): the
# process would load 366 shared libraries at start-up instead of about 150. libopencv_imgcodecs is
# loaded by CVision when first needed (see image.cpp). The file goes where SwiftPM looks by default.
modules="calib3d features2d video imgproc core"
pc_dir=/usr/local/lib/pkgconfig
libs="$(pkg-config --libs-only-L opencv4)"
for module in $modules; do libs="$libs -lopencv_$module"; done
pc="# Written by ARSim's Tools/setup.sh from opencv4.pc: its include path, only the modules CVision links.
Name: arsim-opencv4
Description: OpenCV $(pkg-config --modversion opencv4), the modules ARSim's CVision uses
Version: $(pkg-config --modversion opencv4)
Cflags: $(pkg-config --cflags opencv4)
Libs: ${libs# }"
if [ "$(cat "$pc_dir/arsim-opencv4.pc" 2>/dev/null)" != "$pc" ]; then
  echo "setup: writing $pc_dir/arsim-opencv4.pc" >&2
  $SUDO mkdir -p "$pc_dir"
  printf '%s\n' "$pc" | $SUDO tee "$pc_dir/arsim-opencv4.pc" >/dev/null
fi
