#!/usr/bin/env bash
# Installs what ARSim needs on a Debian machine that has the Swift toolchain:
# OpenCV, Eigen, libzip, libdeflate, libjpeg-turbo and FFmpeg's libraries from Debian, found through
# pkg-config. Idempotent; run as root (or with sudo available).
set -euo pipefail

if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists opencv4 eigen3 libzip libdeflate libjpeg libavformat libavcodec libswscale libavutil; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing libopencv-dev libeigen3-dev libzip-dev libdeflate-dev libjpeg-dev libavformat-dev libavcodec-dev libswscale-dev libavutil-dev pkg-config (apt)" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends libopencv-dev libeigen3-dev libzip-dev libdeflate-dev libjpeg-dev libavformat-dev libavcodec-dev libswscale-dev libavutil-dev pkg-config >/dev/null
pkg-config --exists opencv4 eigen3 libzip libdeflate libjpeg libavformat libavcodec libswscale libavutil
