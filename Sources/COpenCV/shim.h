// COpenCV only carries pkg-config's flags for OpenCV (arsim-opencv4, from Tools/setup.sh) to CVision.
// Nothing is imported from here into Swift.
