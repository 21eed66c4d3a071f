// CFFmpeg only carries pkg-config's flags for FFmpeg's libraries (libavformat, and beside it
// libavcodec, libavutil and libswscale) to CVision, which reads and writes video through them.
// Nothing is imported from here into Swift.
